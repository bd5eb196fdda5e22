// Keccak-f[1600], rounds unrolled by nvcc: a held-out check of the timing model's instruction fetch
// (run.py launches it; nvcc 13.0 -arch=sm_90 -ptx keccak.cu -o keccak.ptx)
#include <stdint.h>
__device__ __constant__ uint64_t RC[24] = {
  0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
  0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
  0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
  0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
  0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
  0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};
__device__ __forceinline__ uint64_t rotl(uint64_t x, int n) { return (x << n) | (x >> (64 - n)); }
__device__ __forceinline__ void keccakf(uint64_t s[25]) {
  const int rho[24] = {1,3,6,10,15,21,28,36,45,55,2,14,27,41,56,8,25,43,62,18,39,61,20,44};
  const int pi[24] = {10,7,11,17,18,3,5,16,8,21,24,4,15,23,19,13,12,2,20,14,22,9,6,1};
#pragma unroll
  for (int r = 0; r < 24; r++) {
    uint64_t c[5];
#pragma unroll
    for (int i = 0; i < 5; i++) c[i] = s[i] ^ s[i+5] ^ s[i+10] ^ s[i+15] ^ s[i+20];
#pragma unroll
    for (int i = 0; i < 5; i++) { uint64_t d = c[(i+4)%5] ^ rotl(c[(i+1)%5], 1);
#pragma unroll
      for (int j = 0; j < 25; j += 5) s[j+i] ^= d; }
    uint64_t t = s[1];
#pragma unroll
    for (int i = 0; i < 24; i++) { int j = pi[i]; uint64_t b = s[j]; s[j] = rotl(t, rho[i]); t = b; }
#pragma unroll
    for (int j = 0; j < 25; j += 5) { uint64_t a0=s[j],a1=s[j+1],a2=s[j+2],a3=s[j+3],a4=s[j+4];
      s[j]=a0^(~a1&a2); s[j+1]=a1^(~a2&a3); s[j+2]=a2^(~a3&a4); s[j+3]=a3^(~a4&a0); s[j+4]=a4^(~a0&a1); }
    s[0] ^= RC[r];
  }
}
extern "C" __global__ void keccak_iter(const uint64_t* in, uint64_t* out, int iters) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t s[25];
#pragma unroll
  for (int i = 0; i < 25; i++) s[i] = in[g * 25 + i];
#pragma unroll 1
  for (int k = 0; k < iters; k++) keccakf(s);
#pragma unroll
  for (int i = 0; i < 25; i++) out[g * 25 + i] = s[i];
}
// two permutations back to back per trip: twice the straight code
extern "C" __global__ void keccak_iter2(const uint64_t* in, uint64_t* out, int iters) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t s[25];
#pragma unroll
  for (int i = 0; i < 25; i++) s[i] = in[g * 25 + i];
#pragma unroll 1
  for (int k = 0; k < iters; k++) { keccakf(s); s[3] += k; keccakf(s); }
#pragma unroll
  for (int i = 0; i < 25; i++) out[g * 25 + i] = s[i];
}
