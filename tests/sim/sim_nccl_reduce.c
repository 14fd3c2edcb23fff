/* sim_nccl_reduce.c: element-wise reductions of the simulated NCCL, for the
 * common types (8/32/64-bit integers, half, bfloat16, float, double) and
 * the built-in operations (sum, prod, max, min; avg is sum then divide). */
#include "sim_nccl.h"

#include <math.h>
#include <string.h>

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(man & 0x400)) { man <<= 1; exp--; }
            bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    uint32_t man = x & 0x7fffff;
    if (((x >> 23) & 0xff) == 0xff)
        return sign | 0x7c00 | (man ? 0x200 : 0);
    if (exp >= 31)
        return sign | 0x7c00;
    if (exp <= 0) {
        if (exp < -10)
            return sign;
        man |= 0x800000;
        uint32_t shift = (uint32_t)(14 - exp);
        uint16_t h = (uint16_t)(man >> shift);
        if ((man >> (shift - 1)) & 1)
            h++;
        return sign | h;
    }
    uint16_t h = (uint16_t)(sign | (exp << 10) | (man >> 13));
    if (man & 0x1000)
        h++; /* round half up; carries into the exponent correctly */
    return h;
}

static float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    x += 0x7fff + ((x >> 16) & 1); /* round to nearest even */
    return (uint16_t)(x >> 16);
}

size_t sim_nccl_type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
    }
}

const char *sim_nccl_type_name(ncclDataType_t t)
{
    static const char *names[] = { "i8", "u8", "i32", "u32", "i64", "u64", "f16", "f32", "f64", "bf16",
                                   "f8e4m3", "f8e5m2" };
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "unknown";
}

const char *sim_nccl_op_name(ncclRedOp_t op)
{
    static const char *names[] = { "Sum", "Prod", "Max", "Min", "Avg" };
    return (unsigned)op < sizeof names / sizeof *names ? names[op] : "PreMulSum";
}

#define APPLY(T, a, b, op)                                        \
    ((op) == ncclSum || (op) == ncclAvg ? (T)((a) + (b))          \
     : (op) == ncclProd               ? (T)((a) * (b))            \
     : (op) == ncclMax                ? ((a) > (b) ? (a) : (b))   \
                                      : ((a) < (b) ? (a) : (b)))

#define REDUCE_LOOP(T)                                            \
    do {                                                          \
        T *d = dst; const T *s = src;                             \
        for (size_t i = 0; i < n; i++) d[i] = APPLY(T, d[i], s[i], op); \
    } while (0)

#define REDUCE_LOOP16(to_f, from_f)                               \
    do {                                                          \
        uint16_t *d = dst; const uint16_t *s = src;               \
        for (size_t i = 0; i < n; i++) {                          \
            float a = to_f(d[i]), b = to_f(s[i]);                 \
            d[i] = from_f(APPLY(float, a, b, op));                \
        }                                                         \
    } while (0)

int sim_nccl_reduce(void *dst, const void *src, size_t n, ncclDataType_t t, ncclRedOp_t op)
{
    if ((unsigned)op > ncclAvg)
        return -1;
    switch (t) {
    case ncclInt8:     REDUCE_LOOP(int8_t); return 0;
    case ncclUint8:    REDUCE_LOOP(uint8_t); return 0;
    case ncclInt32:    REDUCE_LOOP(int32_t); return 0;
    case ncclUint32:   REDUCE_LOOP(uint32_t); return 0;
    case ncclInt64:    REDUCE_LOOP(int64_t); return 0;
    case ncclUint64:   REDUCE_LOOP(uint64_t); return 0;
    case ncclFloat32:  REDUCE_LOOP(float); return 0;
    case ncclFloat64:  REDUCE_LOOP(double); return 0;
    case ncclFloat16:  REDUCE_LOOP16(half_to_float, float_to_half); return 0;
    case ncclBfloat16: REDUCE_LOOP16(bf16_to_float, float_to_bf16); return 0;
    default: return -1;
    }
}

#define DIVIDE_LOOP(T) do { T *d = dst; for (size_t i = 0; i < n; i++) d[i] = (T)(d[i] / by); } while (0)

int sim_nccl_divide(void *dst, size_t n, ncclDataType_t t, int by)
{
    switch (t) {
    case ncclInt8:     DIVIDE_LOOP(int8_t); return 0;
    case ncclUint8:    DIVIDE_LOOP(uint8_t); return 0;
    case ncclInt32:    DIVIDE_LOOP(int32_t); return 0;
    case ncclUint32:   { uint32_t *d = dst; for (size_t i = 0; i < n; i++) d[i] /= (uint32_t)by; } return 0;
    case ncclInt64:    DIVIDE_LOOP(int64_t); return 0;
    case ncclUint64:   { uint64_t *d = dst; for (size_t i = 0; i < n; i++) d[i] /= (uint64_t)by; } return 0;
    case ncclFloat32:  DIVIDE_LOOP(float); return 0;
    case ncclFloat64:  DIVIDE_LOOP(double); return 0;
    case ncclFloat16:  { uint16_t *d = dst; for (size_t i = 0; i < n; i++) d[i] = float_to_half(half_to_float(d[i]) / (float)by); } return 0;
    case ncclBfloat16: { uint16_t *d = dst; for (size_t i = 0; i < n; i++) d[i] = float_to_bf16(bf16_to_float(d[i]) / (float)by); } return 0;
    default: return -1;
    }
}
