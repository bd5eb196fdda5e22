// Host driver for planted.cu on a GPU: ./run_planted CASE launches one planted kernel as the
// sanitizer tests launch it in ptxvm (same grid, block and arguments).
#include <cstdio>
#include <cstring>
#include "planted.cu"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); } } while (0)

static int *ints(int n, bool init) {
    int *p; CK(cudaMalloc(&p, n * sizeof(int)));
    if (init) {
        int h[256]; for (int i = 0; i < n; i++) h[i] = i;
        CK(cudaMemcpy(p, h, n * sizeof(int), cudaMemcpyHostToDevice));
    }
    return p;
}

int main(int argc, char **argv) {
    if (argc < 2) { printf("usage: run_planted CASE\n"); return 2; }
    const char *c = argv[1];
    int *out = ints(128, true), *in = ints(64, true), *in60 = ints(60, true);
    unsigned long long *u; CK(cudaMalloc(&u, 64));
    CK(cudaMemset(u, 0, 64));
    if (!strcmp(c, "oob_write")) oob_write<<<1, 64>>>(in60, 60);
    else if (!strcmp(c, "oob_write_ok")) oob_write_ok<<<1, 64>>>(in60, 60);
    else if (!strcmp(c, "oob_read")) oob_read<<<1, 32>>>(out, in60, 60);
    else if (!strcmp(c, "oob_read_ok")) oob_read_ok<<<1, 32>>>(out, in60, 60);
    else if (!strcmp(c, "oob_shared")) oob_shared<<<1, 32>>>(out, 4096);
    else if (!strcmp(c, "oob_shared_ok")) oob_shared_ok<<<1, 32>>>(out, 5);
    else if (!strcmp(c, "misaligned")) misaligned<<<1, 32>>>(out, (const char *)in, 1);
    else if (!strcmp(c, "misaligned_ok")) misaligned_ok<<<1, 32>>>(out, (const char *)in, 1);
    else if (!strcmp(c, "heap_leak")) heap_leak<<<1, 32>>>(u);
    else if (!strcmp(c, "heap_leak_ok")) heap_leak_ok<<<1, 32>>>(u);
    else if (!strcmp(c, "double_free")) double_free<<<1, 32>>>(u);
    else if (!strcmp(c, "use_after_free")) use_after_free<<<1, 32>>>(u);
    else if (!strcmp(c, "race_raw")) race_raw<<<1, 64>>>(out, in);
    else if (!strcmp(c, "race_raw_ok")) race_raw_ok<<<1, 64>>>(out, in);
    else if (!strcmp(c, "race_war")) race_war<<<1, 64>>>(out, in);
    else if (!strcmp(c, "race_war_ok")) race_war_ok<<<1, 64>>>(out, in);
    else if (!strcmp(c, "race_waw")) race_waw<<<1, 64>>>(out);
    else if (!strcmp(c, "race_waw_ok")) race_waw_ok<<<1, 64>>>(out);
    else if (!strcmp(c, "race_global")) race_global<<<4, 32>>>(out);
    else if (!strcmp(c, "race_global_ok")) race_global_ok<<<4, 32>>>(out);
    else if (!strcmp(c, "uninit_global")) uninit_global<<<1, 32>>>(out, ints(32, false));
    else if (!strcmp(c, "uninit_global_ok")) uninit_global<<<1, 32>>>(out, ints(32, true));
    else if (!strcmp(c, "uninit_shared")) uninit_shared<<<1, 32>>>(out);
    else if (!strcmp(c, "uninit_shared_ok")) uninit_shared_ok<<<1, 32>>>(out);
    else if (!strcmp(c, "divergent_barrier")) divergent_barrier<<<1, 32>>>(out);
    else if (!strcmp(c, "divergent_barrier_ok")) divergent_barrier_ok<<<1, 32>>>(out);
    else if (!strcmp(c, "shfl_bad_mask")) shfl_bad_mask<<<1, 32>>>(out);
    else if (!strcmp(c, "shfl_bad_mask_ok")) shfl_bad_mask_ok<<<1, 32>>>(out);
    else { printf("unknown case %s\n", c); return 2; }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return 0;
}
