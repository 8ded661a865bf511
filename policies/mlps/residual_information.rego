package mlps.residual_information

import data.lib.compute
import data.lib.findings
import data.lib.fleets
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Wipe storage before release"
# description: >-
#   Every launch-template EBS mapping is deleted on termination and encrypted, sensitive fleets
#   do not stop or hibernate interrupted spot instances (which keeps their volumes), sensitive
#   StorageClasses delete released volumes, and, when EC2 was read (seedance check --lookup), no
#   instance type launched has an instance store that is not encrypted.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.10
#   clause: "8.1.4.10"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Set ebs.deleteOnTermination and ebs.encrypted "true"; use spot interruption behaviour
#     terminate; reclaimPolicy Delete on sensitive StorageClasses; choose instance types whose
#     instance store is encrypted (NVMe instance stores are) or that have none.
violation contains findings.finding("MLPS-L3-8.1.4.10", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

# launch templates, instances and spot instance requests alike
_lts := compute.indices

_problems contains findings.problem(lt, msg) if {
	some i in _lts
	lt := input.document.resources[i]
	some m in compute.ebs_mappings(lt)
	not resources.truthy(object.get(m.ebs, "deleteOnTermination", false))
	msg := sprintf("EBS mapping %v survives instance termination (deleteOnTermination not true)", [object.get(m, "deviceName", "?")])
}

_problems contains findings.problem(lt, msg) if {
	some i in _lts
	lt := input.document.resources[i]
	some m in compute.ebs_mappings(lt)
	not resources.truthy(object.get(m.ebs, "encrypted", false))
	msg := sprintf("EBS mapping %v is not encrypted, so released blocks are readable", [object.get(m, "deviceName", "?")])
}

_problems contains compute.unseen_launch_problem(i, ref, "whether its volumes are encrypted and deleted on termination") if {
	some [i, ref] in compute.unseen_launch_sources
}

_problems contains findings.problem(lt, msg) if {
	some i in _lts & resources.sensitive_indices
	lt := input.document.resources[i]
	behaviour := compute.interruption_behaviour(lt)
	behaviour in {"stop", "hibernate"}
	msg := sprintf("sensitive spot instances %s on interruption and keep their volumes", [behaviour])
}

_problems contains findings.problem(sc, "sensitive StorageClass keeps released volumes (reclaimPolicy Retain)") if {
	some i in resources.indices("kubernetes:storage.k8s.io/v1:StorageClass") & resources.sensitive_indices
	sc := input.document.resources[i]
	object.get(sc.inputs, "reclaimPolicy", "Delete") == "Retain"
}

# Instance types with an instance store that is not always encrypted, as EC2 describes them
# (input.facts.instance_types, read by seedance check --lookup; not checked without them)
_unencrypted_store[t] := support if {
	some t, fact in object.get(input, ["facts", "instance_types"], {})
	fact.instance_storage == true
	support := object.get(fact, "encryption_support", null)
	support != "required"
}

_problems contains findings.problem(r, msg) if {
	count(_unencrypted_store) > 0
	some i in _launchers
	r := input.document.resources[i]
	some t in _instance_types(r)
	support := _unencrypted_store[t]
	msg := sprintf("instance type %s has an instance store that is not always encrypted (EC2: encryption support %v), so released blocks may be readable", [t, support])
}

_launchers := (_lts | fleets.asg_indices(input.document)) | resources.indices("aws:eks/nodeGroup:NodeGroup")

_instance_types(r) := {t |
	some t in array.concat([object.get(r.inputs, "instanceType", null)], resources.elements(object.get(r.inputs, "instanceTypes", [])))
	is_string(t)
} | fleets.instance_types(r)
