package mlps.trusted_software

import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.karpenter
import data.lib.pods
import data.lib.resources

# METADATA
# title: "Trusted software"
# description: >-
#   Container images come from allow-listed registries (the account's own ECR, a few public
#   registries and those the policy's compliance.trusted.registries adds) and are pinned by
#   digest. Launch templates, instances and spot requests boot AMIs from allow-listed owners:
#   resolved through an SSM parameter path only the owner publishes (AWS's /aws/service/, or a
#   prefix compliance.trusted.amiParameters adds) or listed by id in compliance.trusted.amis; an
#   AMI id alone does not show its owner.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.5-6
#   clause: "8.1.4.5 / 8.1.4.6"
#   framework: mlps-l3
#   severity: advisory
#   remediation: >-
#     Pull images from the account's own ECR (cloud.accountId) or an allow-listed registry
#     (compliance.trusted.registries) and pin them as image@sha256:<digest>. Boot AMIs through
#     resolve:ssm: on AWS's public parameters (the EKS-optimised AMIs Seedance uses by default) or
#     on your own parameter path (compliance.trusted.amiParameters), or list your vetted AMI ids
#     in compliance.trusted.amis.
violation contains findings.finding("MLPS-L3-8.1.4.5-6", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

# the account's own ECR (cloud.accountId, any region); another account's ECR is not trusted, and
# without a declared account no ECR is (fail closed)
_trusted(image) if {
	is_string(image)
	account := input.policy.cloud.accountId
	regex.match(`^[0-9]{12}$`, account)
	regex.match(sprintf(`^%s\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/`, [account]), image)
}

_trusted(image) if {
	is_string(image)
	strings.any_prefix_match(image, _registries)
}

# the allow-lists, the policy's entries included (computed once, not per image)
_registries := frameworks.allow_list("trusted_registries")

_ami_parameters := frameworks.allow_list("trusted_ami_parameters")

_amis := frameworks.allow_list("trusted_amis")

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	some spec in resources.pod_specs(w)
	some c in resources.containers(spec)
	not _trusted(c.image)
	msg := sprintf("container %s pulls %v from a registry that is not allow-listed", [pods.name(c), c.image])
}

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	some spec in resources.pod_specs(w)
	some c in resources.containers(spec)
	is_string(c.image) # another value is no image reference: the allow-list rule above reports it
	not contains(c.image, "@sha256:")
	msg := sprintf("container %s image %s is not pinned by digest", [pods.name(c), c.image])
}

_problems contains findings.problem(r, msg) if {
	some i in compute.indices
	r := input.document.resources[i]
	some image in compute.images(r)
	not _trusted_ami(image)
	msg := sprintf("%s boots %v, which is not shown to come from an allow-listed owner (an AMI resolved from %s, or listed in compliance.trusted.amis)", [
		compute.noun(r), image, concat(", ", [sprintf("resolve:ssm:%s", [p]) | some p in _ami_parameters]),
	])
}

_problems contains compute.unseen_launch_problem(i, ref, "the AMI it boots") if {
	some [i, ref] in compute.unseen_launch_sources
	not compute.overrides_template(input.document.resources[i], "ami")
}

# the images a Karpenter EC2NodeClass selects (lib.karpenter: an alias is AWS's EKS-optimised AMI)
_problems contains findings.problem(r, msg) if {
	some i in karpenter.node_class_indices
	r := input.document.resources[i]
	some image in karpenter.images(r)
	not _trusted_ami(image)
	msg := sprintf("EC2NodeClass boots %v, which is not shown to come from an allow-listed owner (an AMI resolved from %s, an alias, or listed in compliance.trusted.amis)", [
		image, concat(", ", [sprintf("resolve:ssm:%s", [p]) | some p in _ami_parameters]),
	])
}

_trusted_ami(image) if {
	is_string(image)
	startswith(image, "resolve:ssm:")
	strings.any_prefix_match(substring(image, count("resolve:ssm:"), -1), _ami_parameters)
}

_trusted_ami(image) if image in _amis

# a workload whose pod spec, or part of the way to its containers, is unknown until apply
_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	resources.unknown_pod_spec(w)
	msg := sprintf("pod spec %s: its images cannot be shown to come from allow-listed registries, pinned by digest", [resources.pod_spec_why(w)])
}
