/* tsd_destructor.c: a thread whose own key destructor (pthread_key_create,
 * made after the tracer's) makes a CUDA call that captures a stack, after
 * the tracer's destructor has let go of the thread's call-site cache
 * (glibc runs destructors in key order).  Traced as untraced: it prints
 * the call's result and exits 0 (tests/e2e/tracer.sh). */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>

static pthread_key_t key;

static void on_thread_end(void *value)
{
    (void)value;
    printf("destructor cudaStreamSynchronize %d\n", (int)cudaStreamSynchronize(0));
}

static void *worker(void *arg)
{
    (void)arg;
    cudaStreamSynchronize(0); /* this thread's call-site cache is made */
    pthread_setspecific(key, &key);
    return NULL;
}

int main(void)
{
    printf("main cudaStreamSynchronize %d\n", (int)cudaStreamSynchronize(0)); /* the tracer's key is made */
    pthread_key_create(&key, on_thread_end);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    return 0;
}
