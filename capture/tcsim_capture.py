"""tcsim_capture: record Triton kernel launches for tcsim.

Under ``tcsim capture -- python3 prog.py`` this module is loaded for you
(through a sitecustomize on PYTHONPATH) and runs beside tcsim's CUDA driver
interposer: the interposer records each launch exactly as the driver sees it
(parameter bytes, device memory before and after, tensor maps), and this
module tells it, through Triton's hooks, which PTX each loaded kernel came
from and what the Python arguments were (names, dtypes, shapes).

Without the interposer, call it yourself; it then records launches on its
own, from Triton's launch hooks, in the same raw format::

    import tcsim_capture
    tcsim_capture.enable("captures/raw", kernel="matmul", launch=0)
    ...  # run the program
    # then: tcsim capture --convert captures/raw -o captures

The standalone mode knows tensors, integers, floats and None; a tensor
descriptor argument (its CUtensorMap is encoded inside Triton's C launcher)
needs the interposer. torch.compile: Inductor launches through its own
static CUDA launcher, which bypasses Triton's launch hooks; enable() turns
it off (torch._inductor.config.use_static_cuda_launcher = False) in the
standalone mode. Under ``tcsim capture`` nothing needs to be turned off: the
interposer sees those launches, and tcsim finds their PTX in the Triton and
Inductor caches it points to.

Environment (set by ``tcsim capture``): TCSIM_CAPTURE_DIR,
TCSIM_CAPTURE_KERNEL, TCSIM_CAPTURE_LAUNCH, TCSIM_CAPTURE_MAX.
"""

import ctypes
import gc
import json
import os
import re
import shutil
import struct
import sys
import threading

__all__ = ["enable", "disable", "enable_from_env"]

_lock = threading.Lock()
_state = None


class _State:
    def __init__(self, out_dir, kernel, launch, max_captures, mode):
        self.out_dir = out_dir
        self.kernel = re.compile(kernel) if kernel else None
        self.launch = launch
        self.max = max_captures
        self.mode = mode  # "annotate" (beside the interposer) or "standalone"
        self.note = None  # the interposer's tcsim_capture_note, in annotate mode
        self.kernels = {}  # function handle -> info dict
        self.compiled = {}  # function handle -> CompiledKernel
        self.matched = 0
        self.captured = 0
        self.pending = threading.local()
        self.warned = set()


def _warn(msg):
    st = _state
    if st is not None:
        if msg in st.warned:
            return
        st.warned.add(msg)
    sys.stderr.write("tcsim-capture: " + msg + "\n")


def _interposer_note():
    """The interposer's tcsim_capture_note, when it is loaded."""
    try:
        f = ctypes.CDLL(None).tcsim_capture_note
    except (AttributeError, OSError):
        return None
    f.argtypes = [ctypes.c_char_p]
    f.restype = None
    return f


def enable(out_dir=None, kernel=None, launch=None, max_captures=8, mode="auto"):
    """Start recording Triton launches.

    out_dir: where the raw records go (default $TCSIM_CAPTURE_DIR).
    kernel: a regular expression on the kernel name (re.search).
    launch: record only the launch-th matching launch (0-based).
    max_captures: record at most this many launches.
    mode: "auto" (annotate when tcsim's driver interposer is loaded, else
    standalone), "annotate" or "standalone".
    """
    global _state
    out_dir = out_dir or os.environ.get("TCSIM_CAPTURE_DIR")
    if not out_dir:
        raise ValueError("tcsim_capture.enable: give out_dir (or set TCSIM_CAPTURE_DIR)")
    note = _interposer_note()
    if mode == "auto":
        mode = "annotate" if note is not None else "standalone"
    if mode == "annotate" and note is None:
        raise RuntimeError("tcsim_capture: annotate mode needs tcsim's driver interposer (run under tcsim capture)")
    if mode not in ("annotate", "standalone"):
        raise ValueError("tcsim_capture.enable: mode must be auto, annotate or standalone")
    os.makedirs(out_dir, exist_ok=True)
    with _lock:
        _state = _State(out_dir, kernel, launch, max_captures, mode)
        _state.note = note
    _install()
    return _state


def disable():
    """Stop recording (the hooks stay installed but do nothing)."""
    global _state
    with _lock:
        _state = None


def enable_from_env():
    """enable() from TCSIM_CAPTURE_* variables; a no-op without them."""
    d = os.environ.get("TCSIM_CAPTURE_DIR")
    if not d:
        return None
    launch = os.environ.get("TCSIM_CAPTURE_LAUNCH")
    return enable(
        d,
        kernel=os.environ.get("TCSIM_CAPTURE_KERNEL") or None,
        launch=int(launch) if launch else None,
        max_captures=int(os.environ.get("TCSIM_CAPTURE_MAX", "8")),
    )


# ---- hooks -----------------------------------------------------------------

_installed = False


def _add_hook(holder, attr, fn):
    cur = getattr(holder, attr, None)
    if cur is not None and hasattr(cur, "add"):  # Triton 3.5+: HookChain
        cur.add(fn)
        return
    if cur is None:
        setattr(holder, attr, fn)
        return

    def chained(*a, **k):
        cur(*a, **k)
        fn(*a, **k)

    setattr(holder, attr, chained)


def _install():
    global _installed
    if _installed:
        return
    try:
        import triton  # noqa: F401
        from triton import knobs
        from triton.runtime import jit as tjit
        from triton.compiler import compiler as tcomp
    except Exception as e:  # Triton is not installed or too old
        _warn("Triton hooks not installed (%s)" % (e,))
        return
    _installed = True
    rt = knobs.runtime
    _add_hook(rt, "kernel_load_end_hook", _on_load)
    _add_hook(rt, "launch_enter_hook", _on_enter)
    _add_hook(rt, "launch_exit_hook", _on_exit)

    # Kernel arguments reach the launch hooks only through a JITFunction's
    # launch_metadata callback: give every JITFunction ours (new ones too).
    JIT = tjit.JITFunction
    orig_init = JIT.__init__

    def init(self, *a, **k):
        orig_init(self, *a, **k)
        if getattr(self, "launch_metadata", None) is None:
            self.launch_metadata = _launch_metadata

    JIT.__init__ = init
    for obj in gc.get_objects():
        try:
            if isinstance(obj, JIT) and getattr(obj, "launch_metadata", None) is None:
                obj.launch_metadata = _launch_metadata
        except Exception:
            pass

    # The signature (which arguments became constants) lives on the
    # CompiledKernel; remember it by function handle when it loads.
    CK = tcomp.CompiledKernel
    orig_init_handles = CK._init_handles

    def init_handles(self, *a, **k):
        r = orig_init_handles(self, *a, **k)
        st = _state
        fn = getattr(self, "function", None)
        if st is not None and fn is not None:
            st.compiled[int(fn)] = self
        return r

    CK._init_handles = init_handles

    try:  # standalone: Inductor's static launcher would bypass the hooks
        st = _state
        if st is not None and st.mode == "standalone" and "torch" in sys.modules:
            import torch._inductor.config as icfg

            if getattr(icfg, "use_static_cuda_launcher", False):
                icfg.use_static_cuda_launcher = False
                _warn("set torch._inductor.config.use_static_cuda_launcher = False so that Triton's launch hooks see Inductor's launches")
    except Exception:
        pass


def _launch_metadata(grid, metadata, args):
    return {"tcsim_grid": grid, "tcsim_metadata": metadata, "tcsim_args": args}


def _on_load(module, function, name, metadata_group, hash, *rest):
    st = _state
    if st is None or function is None:
        return
    info = {"function": "0x%x" % int(function), "name": name, "hash": hash, "pid": os.getpid()}
    ptx_path = None
    for k, v in (metadata_group or {}).items():
        if k.endswith(".ptx"):
            ptx_path = v
        elif k.endswith(".json") and not k.startswith("__grp__"):
            info["metadata_file"] = v
        elif k.endswith(".cubin"):
            info["cubin_file"] = v
    if ptx_path and os.path.exists(ptx_path):
        d = os.path.join(st.out_dir, "triton")
        os.makedirs(d, exist_ok=True)
        dst = os.path.join(d, "%s.ptx" % hash)
        if not os.path.exists(dst):
            shutil.copyfile(ptx_path, dst)
        info["ptx"] = os.path.join("triton", "%s.ptx" % hash)
    st.kernels[int(function)] = info
    with _lock:
        with open(os.path.join(st.out_dir, "triton-kernels.jsonl"), "a") as f:
            f.write(json.dumps(info) + "\n")


def _md_value(md, key, default=None):
    try:
        return getattr(md, key)
    except AttributeError:
        pass
    try:
        return md[key]
    except Exception:
        return default


def _describe(name, v):
    """A JSON description of one Python argument."""
    d = {"name": name}
    if v is None:
        d["kind"] = "none"
    elif hasattr(v, "data_ptr") and hasattr(v, "dtype") and hasattr(v, "shape"):
        d["kind"] = "tensor"
        d["data_ptr"] = "0x%x" % v.data_ptr()
        d["dtype"] = str(v.dtype).replace("torch.", "")
        d["shape"] = list(v.shape)
        d["strides"] = list(v.stride())
        d["element_size"] = v.element_size()
        try:
            s = v.untyped_storage()
            d["storage_ptr"] = "0x%x" % s.data_ptr()
            d["storage_bytes"] = s.nbytes()
        except Exception:
            pass
    elif hasattr(v, "base") and hasattr(v, "block_shape"):
        d["kind"] = "tensordesc"
        d["base"] = _describe(name + ".base", v.base)
        d["shape"] = [int(x) for x in v.shape]
        d["strides"] = [int(x) for x in v.strides]
        d["block_shape"] = [int(x) for x in v.block_shape]
    elif isinstance(v, bool):
        d["kind"] = "bool"
        d["value"] = v
    elif isinstance(v, int):
        d["kind"] = "int"
        d["value"] = v
    elif isinstance(v, float):
        d["kind"] = "float"
        d["value"] = v
    else:
        d["kind"] = type(v).__name__
        try:
            d["value"] = repr(v)[:200]
        except Exception:
            pass
    return d


def _launch_info(md):
    """Everything known about a launch from the hook's metadata."""
    fn = md.get("function")
    st = _state
    ck = st.compiled.get(int(fn)) if (st is not None and fn is not None) else None
    meta = md.get("tcsim_metadata") or (ck.metadata if ck is not None else None)
    info = {"name": md.get("name"), "function": "0x%x" % int(fn) if fn is not None else None}
    grid = md.get("tcsim_grid")
    if grid is not None:
        g = list(grid) + [1, 1]
        info["grid"] = [int(g[0]), int(g[1]), int(g[2])]
    if meta is not None:
        for k in ("num_warps", "num_ctas", "shared", "cluster_dims", "global_scratch_size", "profile_scratch_size", "hash", "target"):
            v = _md_value(meta, k)
            if v is None:
                continue
            if k == "target":
                v = {"backend": getattr(v, "backend", None), "arch": getattr(v, "arch", None)}
            elif isinstance(v, tuple):
                v = list(v)
            info[k] = v
    sig = None
    if ck is not None:
        src = getattr(ck, "src", None)
        sig = getattr(src, "signature", None)
        consts = getattr(src, "constants", None)
        if isinstance(sig, dict):
            info["signature"] = {str(k): str(v) for k, v in sig.items()}
        if isinstance(consts, dict):
            info["constants"] = {str(k): repr(v) for k, v in consts.items()}
    args = md.get("tcsim_args")
    if args is not None:
        info["args"] = [_describe(k, v) for k, v in args.items()]
    k = st.kernels.get(int(fn)) if (st is not None and fn is not None) else None
    if k is not None:
        info["ptx"] = k.get("ptx")
        info["kernel_hash"] = k.get("hash")
    return info, args, sig


def _selected(st, name):
    if st.kernel is not None and not st.kernel.search(name or ""):
        return False
    idx = st.matched
    st.matched += 1
    if st.launch is not None and idx != st.launch:
        return False
    if st.captured >= st.max:
        _warn("captured %d launches; later launches are not captured" % st.max)
        return False
    return True


def _on_enter(lazy):
    st = _state
    if st is None or lazy is None:
        return
    try:
        md = lazy.get() if hasattr(lazy, "get") and not isinstance(lazy, dict) else lazy
        info, args, sig = _launch_info(md)
    except Exception as e:
        _warn("launch hook: %s" % (e,))
        return
    if st.mode == "annotate":
        try:
            st.note(json.dumps(info).encode())
        except Exception as e:
            _warn("cannot annotate a launch: %s" % (e,))
        return
    with _lock:
        if not _selected(st, info.get("name")):
            return
        idx = st.captured
        st.captured += 1
    try:
        rec = _standalone_before(st, idx, info, args, sig)
    except Exception as e:
        _warn("launch %d of %s not captured: %s" % (idx, info.get("name"), e))
        rec = None
    st.pending.rec = rec


def _on_exit(lazy):
    st = _state
    if st is None or st.mode != "standalone":
        return
    rec = getattr(st.pending, "rec", None)
    st.pending.rec = None
    if rec is None:
        return
    try:
        _standalone_after(st, rec)
    except Exception as e:
        _warn("launch %d not captured: %s" % (rec["index"], e))


# ---- the standalone recorder ----------------------------------------------

_SCALAR = {
    "i1": ("<b", 1), "i8": ("<b", 1), "u8": ("<B", 1),
    "i16": ("<h", 2), "u16": ("<H", 2),
    "i32": ("<i", 4), "u32": ("<I", 4),
    "i64": ("<q", 8), "u64": ("<Q", 8),
    "fp32": ("<f", 4), "f32": ("<f", 4), "fp64": ("<d", 8), "f64": ("<d", 8),
    "fp16": ("<e", 2), "f16": ("<e", 2),
}


def _storage_bytes(t):
    import torch

    s = t.untyped_storage()
    u8 = torch.empty(0, dtype=torch.uint8, device=t.device).set_(s)
    cpu = u8.cpu()
    return ctypes.string_at(cpu.data_ptr(), cpu.numel()) if cpu.numel() else b""


def _standalone_before(st, idx, info, args, sig):
    import torch

    if args is None or sig is None:
        raise RuntimeError("the launch hook did not get the arguments (kernel launched outside JITFunction.run?)")
    params = []  # (offset, bytes)
    off = 0
    tensors = {}  # storage ptr -> (tensor, nbytes)

    def put(b, align):
        nonlocal off
        off = (off + align - 1) // align * align
        params.append((off, b))
        off += len(b)

    for name, ty in sig.items():
        if ty == "constexpr":
            continue
        v = args.get(name)
        if ty.startswith("*"):
            if v is None:
                put(b"\0" * 8, 8)
            elif hasattr(v, "data_ptr"):
                put(struct.pack("<Q", v.data_ptr()), 8)
                if v.device.type == "cuda":
                    s = v.untyped_storage()
                    tensors[s.data_ptr()] = (v, s.nbytes())
            else:
                put(struct.pack("<Q", int(v)), 8)
        elif ty in _SCALAR:
            fmt, size = _SCALAR[ty]
            put(struct.pack(fmt, v), size)
        else:
            raise RuntimeError("argument %s of type %s needs the driver interposer (run under tcsim capture)" % (name, ty))
    gs = info.get("global_scratch_size") or 0
    if gs:
        raise RuntimeError("the kernel uses %d bytes of global scratch, allocated inside Triton's launcher; run under tcsim capture" % gs)
    put(b"\0" * 8, 8)  # global scratch: NULL
    put(b"\0" * 8, 8)  # profile scratch: NULL
    torch.cuda.synchronize()
    bufs = []
    for ptr, (t, n) in sorted(tensors.items()):
        bufs.append({"base": ptr, "size": n, "tensor": t, "before": _storage_bytes(t)})
    return {"index": idx, "info": info, "params": params, "bufs": bufs}


def _write_process(st):
    """process-PID.json and session.json, as the interposer and tcsim
    capture write them: the GPU, its CUDA version, the command line."""
    import torch

    path = os.path.join(st.out_dir, "process-%d.json" % os.getpid())
    if os.path.exists(path):
        return
    drv = ctypes.c_int(0)
    try:
        ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(drv))
    except OSError:
        pass
    maj, mnr = torch.cuda.get_device_capability()
    try:
        with open("/proc/self/cmdline", "rb") as f:
            argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        argv = [sys.executable] + sys.argv
    with open(path, "w") as f:
        json.dump({"pid": os.getpid(), "exe": sys.executable, "cmdline": argv,
                   "device": torch.cuda.get_device_name(), "cc": "%d.%d" % (maj, mnr),
                   "driver_cuda_version": drv.value}, f, indent=1)
    sess = os.path.join(st.out_dir, "session.json")
    if not os.path.exists(sess):
        import datetime

        driver = ""
        try:
            with open("/proc/driver/nvidia/version") as f:
                driver = f.readline().strip()
        except OSError:
            pass
        with open(sess, "w") as f:
            json.dump({"command": argv, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                       "exit_code": 0, "cache_dirs": [], "compiler": "", "driver": driver,
                       "kernel": st.kernel.pattern if st.kernel else "", "launch": -1 if st.launch is None else st.launch,
                       "environment": [], "tcsim_command": "tcsim_capture.enable(%r)" % st.out_dir}, f, indent=1)


def _standalone_after(st, rec):
    import torch

    torch.cuda.synchronize()
    try:
        _write_process(st)
    except Exception as e:
        _warn("no process description: %s" % (e,))
    info = rec["info"]
    d = os.path.join(st.out_dir, "launch-py-%04d-p%d" % (rec["index"], os.getpid()))
    os.makedirs(d, exist_ok=True)
    blob = bytearray()
    layout = []
    for off, b in rec["params"]:
        if len(blob) < off:
            blob += b"\0" * (off - len(blob))
        blob += b
        layout.append({"offset": off, "size": len(b)})
    with open(os.path.join(d, "params.bin"), "wb") as f:
        f.write(bytes(blob))
    bufs = []
    for i, b in enumerate(rec["bufs"]):
        after = _storage_bytes(b["tensor"])
        with open(os.path.join(d, "mem-%d-before.bin" % i), "wb") as f:
            f.write(b["before"])
        with open(os.path.join(d, "mem-%d-after.bin" % i), "wb") as f:
            f.write(after)
        bufs.append({"base": "0x%x" % b["base"], "size": b["size"], "allocated_by": "torch",
                     "refs": [], "before": "mem-%d-before.bin" % i, "after": "mem-%d-after.bin" % i})
    meta = info
    nw = int(meta.get("num_warps") or 4)
    cl = meta.get("cluster_dims") or [1, 1, 1]
    if int(meta.get("num_ctas") or 1) == 1:
        cl = [1, 1, 1]
    rec_json = {
        "source": "triton",
        "pid": os.getpid(),
        "index": rec["index"],
        "api": "triton launch hooks",
        "kernel": info.get("name"),
        "function": info.get("function"),
        "grid": info.get("grid", [1, 1, 1]),
        "block": [32 * nw, 1, 1],
        "cluster": list(cl) if list(cl) != [1, 1, 1] else [0, 0, 0],
        "smem": int(meta.get("shared") or 0),
        "image": info.get("ptx"),
        "image_kind": "ptx",
        "param_bytes": "params.bin",
        "params": layout,
        "tensormaps": [],
        "buffers": bufs,
        "notes": [],
        "annotation": info,
    }
    with open(os.path.join(d, "launch.json"), "w") as f:
        json.dump(rec_json, f, indent=1)
    sys.stderr.write("tcsim-capture: captured launch %d of %s into %s\n" % (rec["index"], info.get("name"), d))
