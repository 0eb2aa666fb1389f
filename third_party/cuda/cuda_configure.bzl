"""Maps the CUDA Toolkit's headers into @cuda, found through CUDA_PATH (default /usr/local/cuda).

Only headers: tessel opens libcuda and libnvrtc with dlopen at run time, so nothing links
against the toolkit. Without a toolkit the repository is empty and `has_cuda` is False.
"""

def _cuda_configure_impl(ctx):
    cuda_path = ctx.os.environ.get("CUDA_PATH", "/usr/local/cuda")
    include = ctx.path(cuda_path + "/include")
    has_cuda = include.exists and ctx.path(cuda_path + "/include/cuda.h").exists
    if has_cuda:
        ctx.symlink(include, "include")
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "headers",
    hdrs = glob(["include/**/*.h", "include/**/*.hpp"]),
    includes = ["include"],
)
""")
    ctx.file("defs.bzl", "HAS_CUDA = %s\nCUDA_PATH = %r\n" % (has_cuda, cuda_path))

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["CUDA_PATH"],
    local = True,
)
