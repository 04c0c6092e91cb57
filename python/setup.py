"""The wheel's build script, run by scripts/wheel.sh in a staged copy of the package (never from
the source tree: the staged poolshim/ holds the built libpoolshim.so and `poolshim` command in
poolshim/_bundle/ and the wheel's generated _build.py, whose VERSION is CMake's
project(VERSION)).

The wheel is platform-specific but not tied to a CPython version: py3-none-<platform> (the Python
code is pure; the ELF files are loaded by the dynamic linker, never imported). The platform is
POOLSHIM_WHEEL_PLATFORM when set (scripts/wheel.sh: manylinux_2_X_<arch>, X read from the bundled
files), else this interpreter's (linux_<arch>)."""
import os
import sysconfig

from setuptools import Distribution, setup
from wheel.bdist_wheel import bdist_wheel


def version():
    ns = {}
    with open("poolshim/_build.py") as f:
        exec(f.read(), ns)  # noqa: S102 - our own generated file
    return ns["VERSION"]


class PlatformDistribution(Distribution):
    """Installed into platlib, at the wheel's root (not .data/purelib): it carries ELF files."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """py3-none-<platform>: ELF files for this platform, but no extension module for one CPython."""

    def get_tag(self):
        plat = os.environ.get("POOLSHIM_WHEEL_PLATFORM") or sysconfig.get_platform()
        return "py3", "none", plat.replace("-", "_").replace(".", "_")


setup(
    name="poolshim",
    version=version(),
    description="One process-wide CPU thread pool behind the legacy thread-pool ABIs (ExecuTorch, pthreadpool)",
    long_description=open("README.md").read(),
    long_description_content_type="text/markdown",
    license="BSD-3-Clause",
    python_requires=">=3.7",
    packages=["poolshim"],
    package_data={"poolshim": ["_bundle/lib/libpoolshim.so", "_bundle/bin/poolshim"]},
    entry_points={"console_scripts": ["poolshim = poolshim._cli:main"]},
    distclass=PlatformDistribution,
    cmdclass={"bdist_wheel": PlatformWheel},
    zip_safe=False,
)
