// Host driver for planted_sync.cu on a GPU: ./run_planted_sync CASE launches one kernel as
// tests/tools/sanitizer/test_sanitizer_sync.py launches it in ptxvm (grid 1, block 64).
#include <cstdio>
#include <cstring>
#include "planted_sync.cu"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); } } while (0)

int main(int argc, char **argv) {
    if (argc < 2) { printf("usage: run_planted_sync CASE\n"); return 2; }
    const char *c = argv[1];
    int h[128];
    for (int i = 0; i < 128; i++) h[i] = i;
    int *out, *in;
    CK(cudaMalloc(&out, 128 * sizeof(int)));
    CK(cudaMalloc(&in, 64 * sizeof(int)));
    CK(cudaMemcpy(out, h, 128 * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(in, h, 64 * sizeof(int), cudaMemcpyHostToDevice));
    if (!strcmp(c, "mbar_race")) mbar_race<<<1, 64>>>(out, in);
    else if (!strcmp(c, "mbar_race_ok")) mbar_race_ok<<<1, 64>>>(out, in);
    else if (!strcmp(c, "cp_async_race")) cp_async_race<<<1, 64>>>(out, in);
    else if (!strcmp(c, "cp_async_race_ok")) cp_async_race_ok<<<1, 64>>>(out, in);
    else if (!strcmp(c, "cp_async_early")) cp_async_early<<<1, 64>>>(out, in);
    else if (!strcmp(c, "bulk_race")) bulk_race<<<1, 64>>>(out, in);
    else if (!strcmp(c, "bulk_race_ok")) bulk_race_ok<<<1, 64>>>(out, in);
    else if (!strcmp(c, "fence_flag")) fence_flag<<<1, 64>>>(out, in);
    else if (!strcmp(c, "fence_flag_ok")) fence_flag_ok<<<1, 64>>>(out, in);
    else if (!strcmp(c, "divergent_block")) divergent_block<<<1, 64>>>(out);
    else if (!strcmp(c, "divergent_block_ok")) divergent_block_ok<<<1, 64>>>(out);
    else if (!strcmp(c, "exit_before_barrier")) exit_before_barrier<<<1, 64>>>(out);
    else { printf("unknown case %s\n", c); return 2; }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int got[128];
    CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
    printf("out[0..3] %d %d %d %d out[32..35] %d %d %d %d\n", got[0], got[1], got[2], got[3], got[32], got[33], got[34], got[35]);
    return 0;
}
