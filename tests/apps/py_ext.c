/* py_ext.c: a CPython extension module as PyTorch's bindings are made: it
 * calls the CUDA runtime between Py_BEGIN_ALLOW_THREADS and
 * Py_END_ALLOW_THREADS, so the calling thread holds no GIL while it waits
 * (THPVariable_item releases it around self.item()).  Built by
 * tests/e2e/tracer_python.sh against each CPython's headers, linked with the
 * simulator; the tracer, preloaded, sees the calls. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>

/* The runtime's own declarations, as far as used here (cudaStream_t is a
 * pointer, cudaError_t an int-sized enum). */
int cudaStreamSynchronize(void *stream);
int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream);

/* sync(stream): cudaStreamSynchronize, the GIL released; its result. */
static PyObject *ext_sync(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long stream;
    if (!PyArg_ParseTuple(args, "K", &stream))
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = cudaStreamSynchronize((void *)(uintptr_t)stream);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(rc);
}

/* item(dev, host, stream): what tensor.item() does (_local_scalar_dense):
 * 4 bytes copied back, then the stream waited for, the GIL released. */
static PyObject *ext_item(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long dev, host, stream;
    if (!PyArg_ParseTuple(args, "KKK", &dev, &host, &stream))
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = cudaMemcpyAsync((void *)(uintptr_t)host, (const void *)(uintptr_t)dev, 4, 2, (void *)(uintptr_t)stream);
    if (rc == 0)
        rc = cudaStreamSynchronize((void *)(uintptr_t)stream);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(rc);
}

static PyMethodDef methods[] = {
    { "sync", ext_sync, METH_VARARGS, "cudaStreamSynchronize without the GIL" },
    { "item", ext_item, METH_VARARGS, "a 4-byte copy back and a stream sync without the GIL" },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = { PyModuleDef_HEAD_INIT, "py_ext", NULL, -1, methods, NULL, NULL, NULL, NULL };

PyMODINIT_FUNC PyInit_py_ext(void);
PyMODINIT_FUNC PyInit_py_ext(void)
{
    return PyModule_Create(&module);
}
