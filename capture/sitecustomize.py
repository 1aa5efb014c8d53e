# tcsim capture puts this file first on PYTHONPATH: it loads tcsim_capture
# (which hooks Triton when TCSIM_CAPTURE_DIR is set) and then runs the
# sitecustomize that it shadows, if there is one.
import os as _os
import sys as _sys

try:
    import tcsim_capture as _tc

    _tc.enable_from_env()
except Exception as _e:  # never break the user's program
    _sys.stderr.write("tcsim-capture: not enabled: %s\n" % (_e,))


def _chain():
    import importlib.util

    here = _os.path.dirname(_os.path.abspath(__file__))
    for d in _sys.path:
        if not d or _os.path.abspath(d) == here:
            continue
        p = _os.path.join(d, "sitecustomize.py")
        if _os.path.isfile(p):
            spec = importlib.util.spec_from_file_location("_tcsim_shadowed_sitecustomize", p)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return


try:
    _chain()
except Exception as _e:
    _sys.stderr.write("tcsim-capture: the original sitecustomize failed: %s\n" % (_e,))
