"""The wheel's requirements (a scikit-build-core metadata provider, pyproject.toml): torch pinned
to the minor version the wheel is built against, read from the build environment, since its
operators use that torch's C++ ABI; then the requirements the settings list."""
import importlib.metadata


def dynamic_metadata(field, settings, project=None):
    if field != "dependencies":
        raise ValueError(f"torch_requirement provides 'dependencies', not {field!r}")
    try:
        torch = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        raise RuntimeError("the wheel is built against the build environment's torch, and it has none: "
                           "pip install torch first (or build with isolation, which installs the newest)") from None
    minor = ".".join(torch.split("+")[0].split(".")[:2])
    return [f"torch=={minor}.*", *settings.get("requires", [])]
