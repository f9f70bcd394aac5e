"""One rank's data and kernels: CSR blocks and list/bitmap vector parts, the constants shared with CUDA (the -D defines), the backends, and the CPU and GPU kernel drivers."""
