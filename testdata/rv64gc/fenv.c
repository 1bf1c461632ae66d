/* Floating point under every rounding mode: arithmetic, fused multiply-add,
   square root and conversions, each result printed as bits with the
   exception flags it raised; then NaN boxing, fmin/fmax, fclass and the
   fcsr fields.  The reference is qemu-riscv64 (softfloat). */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const int modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
static const char *names[] = {"rne", "rtz", "rdn", "rup"};

static uint64_t bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static uint32_t bitsf(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static unsigned flags(void) {
  unsigned r = 0;
  int e = fetestexcept(FE_ALL_EXCEPT);
  if (e & FE_INEXACT) r |= 1;
  if (e & FE_UNDERFLOW) r |= 2;
  if (e & FE_OVERFLOW) r |= 4;
  if (e & FE_DIVBYZERO) r |= 8;
  if (e & FE_INVALID) r |= 16;
  feclearexcept(FE_ALL_EXCEPT);
  return r;
}

static volatile double dv[] = {1.0, 3.0, 0.1, -2.5, 1e308, 4.9e-324, 2.2250738585072014e-308, -0.0, 1.0/0.0, 0.0/0.0, 123456789.987654321, 0.5, 1.5, 2.5, -1.5, 9007199254740993.0, 1e-310};
static volatile float fv[] = {1.0f, 3.0f, 0.1f, -2.5f, 3e38f, 1.4e-45f, 1.17549435e-38f, -0.0f, 1.0f/0.0f, 0.0f/0.0f, 16777217.0f, 0.5f, 2.5f, -1.5f, 1e-40f};
#define ND (sizeof dv / sizeof dv[0])
#define NF (sizeof fv / sizeof fv[0])

int main(void) {
  for (int m = 0; m < 4; m++) {
    fesetround(modes[m]);
    feclearexcept(FE_ALL_EXCEPT);
    unsigned long h = 0;
    for (unsigned i = 0; i < ND; i++)
      for (unsigned j = 0; j < ND; j++) {
        double a = dv[i], b = dv[j];
        double r[5] = {a + b, a - b, a * b, a / b, fma(a, b, dv[(i + j) % ND])};
        for (int k = 0; k < 5; k++) { h = h * 1000003 ^ bits(r[k]); h = h * 31 + flags(); }
      }
    for (unsigned i = 0; i < NF; i++)
      for (unsigned j = 0; j < NF; j++) {
        float a = fv[i], b = fv[j];
        float r[5] = {a + b, a - b, a * b, a / b, fmaf(a, b, fv[(i + j) % NF])};
        for (int k = 0; k < 5; k++) { h = h * 1000003 ^ bitsf(r[k]); h = h * 31 + flags(); }
      }
    printf("%s arith %016lx\n", names[m], h);
    for (unsigned i = 0; i < ND; i++) {
      double a = dv[i];
      double s = sqrt(a); unsigned fs = flags();
      float f = (float)a; unsigned ff = flags();
      long l = lrint(a); unsigned fl = flags();
      long long ll = (long long)a; unsigned fll = flags();
      unsigned long ul = (unsigned long)a; unsigned ful = flags();
      int w = (int)a; unsigned fw = flags();
      unsigned uw = (unsigned)a; unsigned fuw = flags();
      double back = (double)(long)(i * 123456789123LL) * 3; unsigned fb = flags();
      printf("%s %-24.17g sqrt %016lx/%u f32 %08x/%u lrint %ld/%u l %lld/%u lu %lu/%u w %d/%u wu %u/%u i2d %016lx/%u\n",
             names[m], a, bits(s), fs, bitsf(f), ff, l, fl, ll, fll, ul, ful, w, fw, uw, fuw, bits(back), fb);
    }
    for (unsigned i = 0; i < NF; i++) {
      float a = fv[i];
      float s = sqrtf(a); unsigned fs = flags();
      double d = a; unsigned fd = flags();
      long l = lrintf(a); unsigned fl = flags();
      float fi = (float)(long)(i * 987654321987LL); unsigned ffi = flags();
      float fu = (float)(unsigned long)(~0UL - i); unsigned ffu = flags();
      printf("%s %-14.9g sqrt %08x/%u f64 %016lx/%u lrint %ld/%u l2f %08x/%u lu2f %08x/%u\n",
             names[m], a, bitsf(s), fs, bits(d), fd, l, fl, bitsf(fi), ffi, bitsf(fu), ffu);
    }
  }
  fesetround(FE_TONEAREST);
  /* fmin/fmax: -0 < +0, one NaN gives the other operand, signalling NaN raises invalid. */
  double snan; uint64_t sb = 0x7ff0000000000001ull; memcpy(&snan, &sb, 8);
  double pairs[][2] = {{-0.0, 0.0}, {0.0, -0.0}, {NAN, 1.0}, {1.0, NAN}, {NAN, NAN}, {snan, 2.0}, {3.0, -3.0}};
  for (unsigned i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    double mn = fmin(pairs[i][0], pairs[i][1]); unsigned f1 = flags();
    double mx = fmax(pairs[i][0], pairs[i][1]); unsigned f2 = flags();
    int eq = pairs[i][0] == pairs[i][1]; unsigned f3 = flags();
    int lt = pairs[i][0] < pairs[i][1]; unsigned f4 = flags();
    printf("min %016lx/%u max %016lx/%u eq %d/%u lt %d/%u\n", bits(mn), f1, bits(mx), f2, eq, f3, lt, f4);
  }
  /* fclass of every kind of value. */
  for (unsigned i = 0; i < ND; i++) {
    unsigned long c;
    double a = dv[i];
    __asm__ volatile("fclass.d %0, %1" : "=r"(c) : "f"(a));
    printf("fclass %016lx %03lx\n", bits(a), c);
  }
  /* NaN boxing: a single read from a register that is not boxed is the canonical NaN. */
  {
    float r; unsigned long raw = 0x000000003f800000ul; /* 1.0f, upper half zero */
    __asm__ volatile("fmv.d.x ft0, %1\n\tfadd.s %0, ft0, ft0" : "=f"(r) : "r"(raw) : "ft0");
    unsigned long back;
    __asm__ volatile("fmv.d.x ft1, %1\n\tfmv.x.d %0, ft1" : "=r"(back) : "r"(raw) : "ft1");
    float one = 1.0f; double widened;
    __asm__ volatile("fmv.d %0, %1" : "=f"(widened) : "f"(one));
    printf("unboxed add %08x raw %016lx boxed %016lx\n", bitsf(r), back, bits(widened));
  }
  /* fcsr: frm and fflags as fields of one register, and the dynamic rounding mode. */
  {
    unsigned long old, frm, fl, csr;
    __asm__ volatile("frcsr %0" : "=r"(old));
    __asm__ volatile("fsrmi 3\n\tfrrm %0" : "=r"(frm));
    double x = 1.0, y = 3.0, q;
    __asm__ volatile("fdiv.d %0, %1, %2" : "=f"(q) : "f"(x), "f"(y));
    __asm__ volatile("frflags %0" : "=r"(fl));
    __asm__ volatile("frcsr %0" : "=r"(csr));
    __asm__ volatile("fscsr %0" : : "r"(old));
    printf("fcsr old %lx frm %lx q %016lx flags %lx csr %lx\n", old, frm, bits(q), fl, csr);
  }
  return 0;
}
