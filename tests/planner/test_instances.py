import pytest

from seedance.gpus import GpuModel
from seedance.planner.instances import OfferView, Requirement, rank_instances, unit_weight

A10G = GpuModel.A10G


def offer(t, gpus, od, spot=None, band=None, model=A10G, mem=24, vcpu=4, ram=16):
    return OfferView(t, vcpu, ram, gpus, model, mem * gpus, od, spot, band)


OFFERS = [
    offer("g5.xlarge", 1, 1.0, 0.4, 5),
    offer("g5.2xlarge", 1, 1.2, 0.3, 5),
    offer("g5.12xlarge", 4, 5.6, 1.6, 5),
    offer("g5.48xlarge", 8, 16.0, 5.0, 5),
    offer("p4d.24xlarge", 8, 22.0, 9.0, 5, model=GpuModel.A100, mem=40),
    offer("g4dn.xlarge", 1, 0.5, 0.2, 100, model=GpuModel.T4, mem=16),
]


def no_loss(rate):
    return 0.0


def test_weights():
    one = Requirement(A10G, 1, 24, max_units=6)
    assert unit_weight(OFFERS[2], one)[0] == 4
    assert unit_weight(OFFERS[3], one) == (None, "holds 8 units, more than the fleet's maximum 6")
    four = Requirement(A10G, 4, 24, max_units=8)
    assert unit_weight(OFFERS[0], four)[0] is None and unit_weight(OFFERS[3], four)[0] == 2
    # a fleet of maximum 0 (stopped by a budget response) runs nothing: any type may be listed
    assert unit_weight(OFFERS[3], Requirement(A10G, 1, 24, max_units=0))[0] == 8
    big_mem = Requirement(A10G, 1, 32, max_units=6)
    assert unit_weight(OFFERS[0], big_mem) == (None, "24 GiB per GPU < 32")


def test_rank_by_effective_cost_per_unit():
    # per unit: g5.xlarge 0.5*0.4 + 0.5*1.0 = 0.70; g5.2xlarge 0.5*0.3 + 0.5*1.2 = 0.75;
    # g5.12xlarge (weight 4): 0.5*0.4 + 0.5*1.4 = 0.90
    r = rank_instances(OFFERS, Requirement(A10G, 1, 24, max_units=6), max_spot_share=0.5, lost_fraction=no_loss)
    assert [c.offer.instance_type for c in r.ranked] == ["g5.xlarge", "g5.2xlarge", "g5.12xlarge"]
    assert [c.cost_per_unit for c in r.ranked] == pytest.approx([0.70, 0.75, 0.90])
    assert [c.weight for c in r.ranked] == [1, 1, 4]
    assert r.rationale.startswith("3 type(s) satisfy 1 x A10G")


def test_interruption_losses_change_the_rank():
    # losing 50% of spot time doubles effective spot: g5.xlarge 0.5*0.8+0.5 = 0.9, g5.2xlarge 0.5*0.6+0.6 = 0.9
    r = rank_instances(OFFERS[:2], Requirement(A10G, 1, max_units=6), max_spot_share=0.5,
                       lost_fraction=lambda rate: 0.5)
    assert [c.cost_per_unit for c in r.ranked] == pytest.approx([0.9, 0.9])


def test_no_spot_ranks_by_on_demand_and_preferred_first():
    r = rank_instances(OFFERS, Requirement(A10G, 1, max_units=6), max_spot_share=None, lost_fraction=no_loss,
                       preferred=["g5.2xlarge"])
    assert [c.offer.instance_type for c in r.ranked] == ["g5.2xlarge", "g5.xlarge", "g5.12xlarge"]
    assert all(c.spot_share == 0 for c in r.ranked)


def test_fewer_than_three_types_says_why():
    r = rank_instances(OFFERS, Requirement(A10G, 4, 24, max_units=8), max_spot_share=0.5, lost_fraction=no_loss,
                       region="eu-central-1")
    assert [c.offer.instance_type for c in r.ranked] == ["g5.12xlarge", "g5.48xlarge"]
    assert "only 2 type(s) in eu-central-1 satisfy 4 x A10G" in r.rationale
    assert "fewer than the 3 spot pools wanted" in r.rationale


def test_allowed_list_and_nothing_qualifies():
    r = rank_instances(OFFERS, Requirement(GpuModel.H100, 8, max_units=2), max_spot_share=0.5, lost_fraction=no_loss)
    assert r.ranked == [] and "no catalog type satisfies 8 x H100" in r.rationale
    r = rank_instances(OFFERS, Requirement(A10G, 1, max_units=6), max_spot_share=None, lost_fraction=no_loss,
                       allowed=["g5.2xlarge"])
    assert [c.offer.instance_type for c in r.ranked] == ["g5.2xlarge"]


def test_cpu_requirement():
    cpu = [OfferView("m5.xlarge", 4, 16, 0, None, 0, 0.2), OfferView("m5.2xlarge", 8, 32, 0, None, 0, 0.4),
           OFFERS[0]]
    r = rank_instances(cpu, Requirement(vcpu=4, memory_gib=16, max_units=4), max_spot_share=None,
                       lost_fraction=no_loss)
    assert [(c.offer.instance_type, c.weight) for c in r.ranked] == [("m5.2xlarge", 2), ("m5.xlarge", 1)] or \
        [(c.offer.instance_type, c.weight) for c in r.ranked] == [("m5.xlarge", 1), ("m5.2xlarge", 2)]
    # both cost 0.2 per unit; the tie goes to the smaller weight
    assert r.ranked[0].offer.instance_type == "m5.xlarge"


def test_a_mig_fleet_only_takes_gpus_of_its_profiles_memory() -> None:
    # a MIG layout (1g.5gb x 7) exists only on the 40 GB A100: an 80 GB A100 (p4de) would refuse it
    from seedance.gpus import GpuModel
    from seedance.planner.instances import Requirement, unit_weight

    class Offer:
        def __init__(self, total: float) -> None:
            self.gpu_model, self.gpus, self.gpu_memory_gib_total = GpuModel.A100, 8, total
            self.instance_type = "p4d.24xlarge"

    mig = Requirement(GpuModel.A100, 8, 40, gpu_memory_sizes=(40,), max_units=4)
    assert unit_weight(Offer(320), mig)[0] == 1  # type: ignore[arg-type]
    weight, why = unit_weight(Offer(640), mig)  # type: ignore[arg-type]
    assert weight is None and why == "80 GiB per GPU; the fleet's MIG profile needs 40 GiB"
    plain = Requirement(GpuModel.A100, 8, 40, max_units=4)
    assert unit_weight(Offer(640), plain)[0] == 1  # type: ignore[arg-type] - without MIG more memory is fine


def test_a_type_whose_spot_loses_every_hour_ranks_on_demand_not_as_nan():
    # a restart longer than the mean time between interruptions: every paid spot hour is lost, the
    # effective spot cost is infinite, the share 0 and the key the on-demand price (0 x inf is NaN)
    offers = [offer("g5.2xlarge", 1, 1.2, 0.3, 100), offer("g5.12xlarge", 4, 5.6, 1.6, 100),
              offer("g5.xlarge", 1, 1.0, 0.4, 100)]
    r = rank_instances(offers, Requirement(A10G, 1, max_units=6), max_spot_share=1.0, lost_fraction=lambda rate: 1.0)
    assert [c.offer.instance_type for c in r.ranked] == ["g5.xlarge", "g5.2xlarge", "g5.12xlarge"]
    assert [c.cost_per_unit for c in r.ranked] == pytest.approx([1.0, 1.2, 1.4])
    assert all(c.spot_share == 0 for c in r.ranked)
    assert "loses every paid hour to interruptions: on-demand only" in r.ranked[0].rationale


def test_the_reason_for_fewer_types_names_those_above_the_fleet_maximum():
    r = rank_instances(OFFERS, Requirement(A10G, 1, 24, max_units=2), max_spot_share=0.5, lost_fraction=no_loss)
    assert [c.offer.instance_type for c in r.ranked] == ["g5.xlarge", "g5.2xlarge"]
    assert "hold no more units than the fleet's maximum 2 (not g5.12xlarge, g5.48xlarge)" in r.rationale


def test_arm64_types_are_never_ranked():
    # the groups boot the x86_64 EKS AMI: a Graviton type (priced by a refresh) would fail every launch,
    # however cheap; a preferred one is named with the reason
    cpu = Requirement(vcpu=4, memory_gib=16, max_units=4)
    graviton = OfferView("m7g.xlarge", 4, 16, 0, None, 0.0, 0.16)
    x86 = [OfferView("m5.xlarge", 4, 16, 0, None, 0.0, 0.19), OfferView("m6i.xlarge", 4, 16, 0, None, 0.0, 0.19)]
    assert unit_weight(graviton, cpu)[0] is None and "arm64 (AWS Graviton)" in unit_weight(graviton, cpu)[1]
    r = rank_instances([graviton, *x86], cpu, max_spot_share=None, lost_fraction=no_loss, preferred=["m7g.xlarge"])
    assert [c.offer.instance_type for c in r.ranked] == ["m5.xlarge", "m6i.xlarge"]
    assert "preferred type(s) not used: m7g.xlarge (is an arm64 (AWS Graviton) type" in r.rationale
    arm_gpu = offer("g5g.xlarge", 1, 0.42, model=GpuModel.T4, mem=16)  # Graviton with NVIDIA GPUs
    assert unit_weight(arm_gpu, Requirement(GpuModel.T4, 1, max_units=2))[0] is None
