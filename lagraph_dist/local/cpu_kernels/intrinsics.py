"""The LLVM operations the CPU set's compiled loops use that numba does not offer, as numba
intrinsics: the core's tick counter, a prefetch, a function kept out of line, and the atomics and
spin hints of two threads' barrier (:mod:`lagraph_dist.local.cpu_kernels.spin`)."""
from __future__ import annotations

import platform

import llvmlite.ir as llvm_ir
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

_MACHINE = platform.machine().lower()
_X86 = _MACHINE in ("x86_64", "amd64")


@intrinsic
def _read_clock(typingctx):
    """The core's tick counter (x86-64: rdtsc, arm64: cntvct_el0); 0 on other machines."""
    def codegen(context, builder, signature, args):
        fnty = llvm_ir.FunctionType(llvm_ir.IntType(64), [])
        if _X86:
            return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter"), [])
        if _MACHINE in ("aarch64", "arm64"):
            return builder.call(llvm_ir.InlineAsm(fnty, "mrs $0, cntvct_el0", "=r", side_effect=True), [])
        return context.get_constant(types.int64, 0)
    return types.int64(), codegen


@intrinsic
def _prefetch(typingctx, array, index):
    """Asks the cache for the line of ``array[index]`` (LLVM's prefetch: no fault, whatever the
    index), to be read soon."""
    def codegen(context, builder, signature, args):
        data = make_array(signature.args[0])(context, builder, args[0]).data
        i8p, i32 = llvm_ir.IntType(8).as_pointer(), llvm_ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, llvm_ir.FunctionType(llvm_ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(builder.gep(data, [args[1]]), i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.none(array, index), codegen


@intrinsic
def _not_inlined(typingctx):
    """Marks the compiled function that calls it ``noinline``: LLVM keeps it a function of its
    own, whose loop has the registers to itself, instead of inlining it into its caller."""
    def codegen(context, builder, signature, args):
        builder.function.attributes.add("noinline")
        return context.get_dummy_value()
    return types.none(), codegen


def _slot(context, builder, signature, args):
    data = make_array(signature.args[0])(context, builder, args[0]).data
    return builder.gep(data, [args[1]])


@intrinsic
def _fetch_add(typingctx, array, index, value):
    """``array[index] += value`` as one atomic step (sequentially consistent); returns the old value."""
    def codegen(context, builder, signature, args):
        return builder.atomic_rmw("add", _slot(context, builder, signature, args), args[2], "seq_cst")
    return types.int64(array, index, value), codegen


@intrinsic
def _load_acquire(typingctx, array, index):
    """``array[index]`` read with acquire order: what the writer stored before its release is seen."""
    def codegen(context, builder, signature, args):
        return builder.load_atomic(_slot(context, builder, signature, args), "acquire", 8)
    return types.int64(array, index), codegen


@intrinsic
def _spin_hint(typingctx):
    """The core's spin-wait hint (x86 ``pause``: the sibling hyperthread gets the pipeline, and
    leaving the loop costs no misspeculation); nothing elsewhere."""
    def codegen(context, builder, signature, args):
        if _X86:
            fnty = llvm_ir.FunctionType(llvm_ir.VoidType(), [])
            builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse2.pause"), [])
        return context.get_dummy_value()
    return types.none(), codegen


@intrinsic
def _yield_core(typingctx):
    """libc's ``sched_yield``: the thread gives its core to another runnable one."""
    def codegen(context, builder, signature, args):
        fnty = llvm_ir.FunctionType(llvm_ir.IntType(32), [])
        builder.call(cgutils.get_or_insert_function(builder.module, fnty, "sched_yield"), [])
        return context.get_dummy_value()
    return types.none(), codegen


@intrinsic
def _store_relaxed(typingctx, array, index, value):
    """``array[index] = value`` as an atomic store of no order (monotonic): each one happens, so
    another thread polling the slot sees it move, where LLVM would merge plain stores in a loop."""
    def codegen(context, builder, signature, args):
        builder.store_atomic(args[2], _slot(context, builder, signature, args), "monotonic", 8)
        return context.get_dummy_value()
    return types.none(array, index, value), codegen
