// Two warps. Warp 0: lane j publishes flag[j] after a lane-dependent delay.
// Warp 1: lane j spin-waits (volatile load + __threadfence, as HeCBench sptrsv's
// atomic_load) for flag[j], then the warp does a warp-synchronous tree reduction
// in shared memory with no __syncwarp (sptrsv_mix's warp path).
__device__ int vload(const int* a) { const volatile int* v = a; int x = *v; __threadfence(); return x; }
__global__ void k(int* flag, const int* delay, int* out) {
  __shared__ int s[64];
  int lane = threadIdx.x & 31;
  if (threadIdx.x < 32) {
    int acc = 0;
    for (int i = 0; i < delay[lane]; i++) acc += vload(&flag[32 + lane]);   // busy work
    __threadfence();
    ((volatile int*)flag)[lane] = 1 + (acc & 0);
    return;
  }
  int sum = 0;
  int j = lane;
  while (j < 32) {                 // same shape as sptrsv: retry until the flag is up
    if (vload(&flag[j]) == 1) { sum += j; j += 32; }
  }
  s[threadIdx.x] = sum;
  for (int offset = 16; offset > 0; offset /= 2)
    if (lane < offset) s[threadIdx.x] += s[threadIdx.x + offset];
  if (lane == 0) out[0] = s[threadIdx.x];
}
