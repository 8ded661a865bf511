"""GPU model facts that the policy language validates against.

The short model names are Seedance's vocabulary; ``CATALOG_NAMES`` maps the names used by
the public price data (ec2instances.info) onto them.  MIG profiles are NVIDIA's published
profile names per GPU memory size (A100 40 GB / 80 GB, H100 80 GB); other GPUs have no MIG.
"""

from __future__ import annotations

from enum import StrEnum


class GpuModel(StrEnum):
    K80 = "K80"
    T4 = "T4"
    V100 = "V100"
    A10G = "A10G"
    L4 = "L4"
    L40S = "L40S"
    A100 = "A100"
    H100 = "H100"
    INFERENTIA2 = "Inferentia2"
    TRAINIUM = "Trainium"


#: GPU model names as they appear in the price data -> our short names.
CATALOG_NAMES: dict[str, GpuModel] = {
    "NVIDIA Tesla K80": GpuModel.K80,
    "NVIDIA T4 Tensor Core": GpuModel.T4,
    "NVIDIA Tesla V100": GpuModel.V100,
    "NVIDIA A10G": GpuModel.A10G,
    "NVIDIA L4": GpuModel.L4,
    "NVIDIA L40S": GpuModel.L40S,
    "NVIDIA A100": GpuModel.A100,
    "NVIDIA H100": GpuModel.H100,
    "AWS Inferentia2": GpuModel.INFERENTIA2,
    # The source data labels trn1 "AWS Inferentia"; trn1 carries Trainium chips.
    "AWS Inferentia": GpuModel.TRAINIUM,
}

#: MIG profiles by (model, memory per GPU in GiB), with how many instances of each fit on one GPU
#: (NVIDIA's MIG user guide: the 1g profile with twice the memory fits 4 times, not 7).
MIG_INSTANCES: dict[tuple[GpuModel, int], dict[str, int]] = {
    (GpuModel.A100, 40): {"1g.5gb": 7, "1g.10gb": 4, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1, "7g.40gb": 1},
    (GpuModel.A100, 80): {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1},
    (GpuModel.H100, 80): {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1},
}

#: MIG profiles by (model, memory per GPU in GiB).
MIG_PROFILES: dict[tuple[GpuModel, int], tuple[str, ...]] = {k: tuple(v) for k, v in MIG_INSTANCES.items()}


NEURON_MODELS = frozenset({GpuModel.INFERENTIA2, GpuModel.TRAINIUM})


def device_resource(model: GpuModel) -> str:
    """The extended resource the accelerator's Kubernetes device plugin advertises."""
    return "aws.amazon.com/neuron" if model in NEURON_MODELS else "nvidia.com/gpu"


def mig_profiles(model: GpuModel, memory_gib: int | None = None) -> tuple[str, ...]:
    """MIG profiles valid for ``model`` (and, when known, its memory per GPU)."""
    out: list[str] = []
    for (m, mem), profiles in MIG_PROFILES.items():
        if m == model and (memory_gib is None or mem == memory_gib):
            out.extend(p for p in profiles if p not in out)
    return tuple(out)


def mig_memory_sizes_of(model: GpuModel) -> tuple[int, ...]:
    """The memory sizes per GPU (GiB) for which ``model`` has MIG profiles; () for a GPU without MIG."""
    return tuple(sorted({mem for (m, mem) in MIG_PROFILES if m == model}))


def mig_slices(profile: str) -> int:
    """Compute slices of a MIG profile (``3g.20gb`` -> 3)."""
    return int(profile.split("g.", 1)[0])


def mig_memory_sizes(model: GpuModel, profile: str) -> tuple[int, ...]:
    """The GPU memory sizes (GiB) of ``model`` on which ``profile`` exists (``1g.10gb`` on A100: 40 and 80)."""
    return tuple(sorted(mem for (m, mem), counts in MIG_INSTANCES.items() if m == model and profile in counts))


def instances_per_gpu(profile: str, model: GpuModel | None = None, memory_gib: int | None = None) -> int:
    """How many instances of ``profile`` fit on one GPU of ``model`` with ``memory_gib``.

    Where the GPU is not pinned down (the count differs by memory size, e.g. ``1g.10gb``: 4 on an
    A100 40 GB, 7 on 80 GB) the smallest count is taken: asking for fewer instances than fit is a
    valid MIG layout, asking for more is not.
    """
    counts = [c[profile] for (m, mem), c in MIG_INSTANCES.items()
              if profile in c and (model is None or m == model) and (memory_gib is None or mem == memory_gib)]
    if counts:
        return min(counts)
    return {1: 7, 2: 3, 3: 2, 4: 1, 7: 1}[mig_slices(profile)]  # a profile outside the table: by its slices
