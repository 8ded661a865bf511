# METADATA
# title: Fleet helpers
# description: >-
#   Autoscaling groups as fleets: SLA tier and fleet from their tags, on-demand base, spot share
#   above the base and instance types from the mixed-instances policy.
# scope: package
package lib.fleets

import data.lib.resources

# positions of the autoscaling groups
asg_indices(_) := resources.indices("aws:autoscaling/group:Group")

# SLA tier and fleet of the autoscaling group at position i, from its tags
sla(i) := object.get(_tags(i), "seedance:sla", "")

fleet(i) := object.get(_tags(i), "seedance:fleet", input.document.resources[i].name)

_tags(i) := object.get(resources.tags_at, i, {})

_distribution(asg) := object.get(asg.inputs, ["mixedInstancesPolicy", "instancesDistribution"], {})

on_demand_base(asg) := object.get(_distribution(asg), "onDemandBaseCapacity", 0)

# share of capacity above the base that runs on spot (0 without a mixed-instances policy)
spot_share(asg) := (100 - object.get(_distribution(asg), "onDemandPercentageAboveBaseCapacity", 100)) / 100 if {
	object.get(asg.inputs, "mixedInstancesPolicy", null) != null
} else := 0

instance_types(asg) := {t |
	some o in object.get(asg.inputs, ["mixedInstancesPolicy", "launchTemplate", "overrides"], [])
	t := o.instanceType
}
