// corpus: only_variants=sm_90-rdc
// Linked after link_lib.cu: a strong definition of tweak (which beats link_lib.cu's weak one
// wherever it comes in the link) and a second weak pick (the first weak one in link order wins).
template <typename T> __device__ __noinline__ T tweak(T x);
template <> __device__ __noinline__ int tweak<int>(int x) { return x + 200; }  // a specialization: .visible
template <typename T> __device__ __noinline__ T pick(T x) { return x + 2000; }
template __device__ int pick<int>(int);  // an instantiation: .weak
