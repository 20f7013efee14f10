"""The package's build backend: maturin's, run without the repository's static linking.

The repository's .cargo/config.toml links every binary statically (+crt-static), which
cannot make the shared library a Python extension is, and a subfolder's config cannot
take that flag back (rustc honours +crt-static wherever it appears). Rust flags given
in the environment replace the configured ones, so the build runs with none.
"""

import os

os.environ["CARGO_ENCODED_RUSTFLAGS"] = ""

from maturin import (  # noqa: E402  (the environment must be set first)
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]
