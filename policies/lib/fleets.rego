# METADATA
# title: Fleet helpers
# description: >-
#   Autoscaling groups as fleets: SLA tier and fleet from their tags, on-demand base, spot share
#   above the base and instance types from the mixed-instances policy.
# scope: package
package lib.fleets

import data.lib.resources
import data.lib.routing

# positions of the autoscaling groups
asg_indices(_) := resources.indices("aws:autoscaling/group:Group")

# SLA tier and fleet of the autoscaling group at position i, from its tags
sla(i) := object.get(_tags(i), "seedance:sla", "")

fleet(i) := object.get(_tags(i), "seedance:fleet", input.document.resources[i].name)

_tags(i) := object.get(resources.tags_at, i, {})

# the instances distribution; one unknown until apply (the policy or the distribution) has no
# base or share that can be read
_distribution(asg) := d if {
	mip := object.get(asg.inputs, "mixedInstancesPolicy", {})
	is_object(mip)
	d := object.get(mip, "instancesDistribution", {})
	is_object(d)
} else := {"onDemandBaseCapacity": "[unknown]", "onDemandPercentageAboveBaseCapacity": "[unknown]"}

distribution(asg) := _distribution(asg)

# The on-demand base and the spot share are undefined where the group gives them in no numeric
# form (a value unknown until apply): the rules then report that they cannot be established.
on_demand_base(asg) := resources.number(object.get(_distribution(asg), "onDemandBaseCapacity", 0))

# share of capacity above the base that runs on spot (without a mixed-instances policy: all of it
# when the launch template asks for spot, else none)
spot_share(asg) := (100 - resources.number(object.get(_distribution(asg), "onDemandPercentageAboveBaseCapacity", 100))) / 100 if {
	object.get(asg.inputs, "mixedInstancesPolicy", null) != null
} else := 1 if {
	object.get(asg.inputs, "mixedInstancesPolicy", null) == null
	_template_spot(asg)
} else := 0 if {
	object.get(asg.inputs, "mixedInstancesPolicy", null) == null
}

# a group without a mixed-instances policy whose launch template of the document asks for spot
# (instanceMarketOptions.marketType "spot"): every instance is spot
_template_spot(asg) if {
	some lt in resources.of_type(input.document, "aws:ec2/launchTemplate:LaunchTemplate")
	_uses_template(asg, lt)
	lower(object.get(lt.inputs, ["instanceMarketOptions", "marketType"], "")) == "spot"
}

_uses_template(asg, lt) if lt.urn in object.get(asg, ["property_dependencies", "launchTemplate"], [])

_uses_template(asg, lt) if routing.names(object.get(asg.inputs, ["launchTemplate", "id"], null), lt)

# an on-demand base of at least one instance (a helper rule: OPA evaluates a call inside `not f(x) >= 1`
# before the `not`, so an undefined base would make the whole rule undefined there)
has_on_demand_base(asg) if on_demand_base(asg) >= 1

# spot above the base, or a share not known until apply
may_use_spot(asg) if spot_share(asg) > 0

may_use_spot(asg) if not spot_share(asg)

instance_types(asg) := {t |
	some o in object.get(asg.inputs, ["mixedInstancesPolicy", "launchTemplate", "overrides"], [])
	t := o.instanceType
}
