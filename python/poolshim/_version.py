"""The version: CMake's project(VERSION), recorded in the generated _build.py of the build tree
and of the install; "unknown" when the module is used straight from the source tree."""
try:
    from ._build import VERSION as __version__
except ImportError:  # python/ of the source tree, not a build or an install
    __version__ = "unknown"
