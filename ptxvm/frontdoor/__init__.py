"""Front doors other than PTX text: CUDA C++ (`compile_cuda`) and inline PTX from Python (`inline_asm`)."""
