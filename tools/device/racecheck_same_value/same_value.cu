// What compute-sanitizer's racecheck reports for threads that store into one shared word with no
// barrier between them, the same value or their own (tools/device/racecheck_same_value/run.sh;
// docs/sanitizer.md). Each kernel runs one CTA of 64 threads (two warps).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void same_value_one_warp(int *out) {  // the 32 lanes of warp 0: 7, one instruction
  volatile __shared__ int s;
  if (threadIdx.x < 32) s = 7;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s;
}
__global__ void same_value_two_warps(int *out) {  // all 64 threads: 7
  volatile __shared__ int s;
  s = 7;
  __syncthreads();
  if (threadIdx.x == 0) out[1] = s;
}
__global__ void own_value_one_warp(int *out) {  // the 32 lanes of warp 0: their own ids
  volatile __shared__ int s;
  if (threadIdx.x < 32) s = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) out[2] = s;
}
__global__ void tile_reduce(int *out) {  // CUDA 13 cooperative groups: a tile of 128 threads (256 in the CTA)
  __shared__ cg::block_tile_memory<256> scratch;
  auto cta = cg::this_thread_block(scratch);
  auto t = cg::tiled_partition<128>(cta);
  int v = cg::reduce(t, (int)threadIdx.x, cg::plus<int>());
  if (t.thread_rank() == 0) out[4 + t.meta_group_rank()] = v;
}
int main() {
  int *d; cudaMalloc(&d, 64);
  same_value_one_warp<<<1, 64>>>(d); same_value_two_warps<<<1, 64>>>(d); own_value_one_warp<<<1, 64>>>(d);
  tile_reduce<<<1, 256>>>(d);
  cudaDeviceSynchronize();
  int h[6]; cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("out %d %d %d %d %d\n", h[0], h[1], h[2], h[4], h[5]);
  return 0;
}
