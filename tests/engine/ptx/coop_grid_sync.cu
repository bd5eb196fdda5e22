#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// Cooperative groups' grid-wide barrier, compiled by nvcc 13.0 -arch=sm_90 -ptx (tests/engine/test_cooperative.py)
extern "C" __global__ void two_phase(int *x, int *out) {
    cg::grid_group g = cg::this_grid();
    unsigned i = g.thread_rank();
    x[i] *= 2;
    g.sync();
    out[i] = x[(i + 1) % g.size()];
}
// Three rounds: each reads its neighbour's value of the round before, so every grid.sync must hold.
extern "C" __global__ void rounds(int *x, int n_rounds) {
    cg::grid_group g = cg::this_grid();
    unsigned i = g.thread_rank(), n = g.size();
    for (int r = 0; r < n_rounds; r++) {
        int v = x[(i + 1) % n];
        g.sync();
        x[i] += v;
        g.sync();
    }
}
