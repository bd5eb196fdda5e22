#include <cuda.h>
#include <cuda/barrier>
#include <cuda/ptx>
namespace cde = cuda::device::experimental;
using barrier = cuda::barrier<cuda::thread_scope_block>;

// Each CTA loads one 16x32 float tile through TMA, scales it, and stores it back through TMA.
extern "C" __global__ void tma_scale_2d(const __grid_constant__ CUtensorMap in_map,
                                        const __grid_constant__ CUtensorMap out_map, float scale)
{
    __shared__ alignas(128) float tile[16][32];
    #pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    int x = blockIdx.x * 32, y = blockIdx.y * 16;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &in_map, x, y, bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x)
        tile[i / 32][i % 32] = tile[i / 32][i % 32] * scale + 1.0f;
    cde::fence_proxy_async_shared_cta();
    __syncthreads();
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_shared_to_global(&out_map, x, y, &tile);
        cde::cp_async_bulk_commit_group();
        cde::cp_async_bulk_wait_group_read<0>();
    }
}
