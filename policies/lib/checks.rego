# METADATA
# title: Checks shared by several controls
# description: >-
#   Problems that more than one framework asks about (encryption at rest and in transit,
#   backups, IAM wildcards). Each function returns a set of {resource, message}; the controls
#   turn them into findings with lib.findings.finding.
# scope: package
package lib.checks

import data.lib.audit
import data.lib.compute
import data.lib.findings
import data.lib.karpenter
import data.lib.resources
import data.lib.routing
import data.lib.s3
import data.lib.transit

ebs_csi := {"ebs.csi.aws.com", "kubernetes.io/aws-ebs"}

storage_class := "kubernetes:storage.k8s.io/v1:StorageClass"

launch_template := "aws:ec2/launchTemplate:LaunchTemplate"


problem(resource, message) := findings.problem(resource, message)

# ---------------------------------------------------------------- encryption at rest

# Each check is a rule, built once per evaluation however many controls ask; the functions
# below return them (functions keep them lazy: a rule is only built when a control asks).
at_rest(_) := _at_rest

_at_rest contains problem(b, "bucket has no default encryption with aws:kms (SSE-KMS)") if {
	some i in s3.bucket_indices
	not i in s3.kms_encrypted
	not i in s3.encryption_hidden
	b := input.document.resources[i]
}

# encryption rules that are unknown until apply or secret may be anything, SSE-S3 or none
_at_rest contains problem(b, msg) if {
	some i in s3.encryption_hidden
	not i in s3.kms_encrypted
	b := input.document.resources[i]
	msg := sprintf("bucket's default encryption rules are %s, so encryption with aws:kms (SSE-KMS) cannot be established", [s3.hidden_encryption(i)])
}

# launch templates, instances and spot instance requests alike (an instance's root volume too)
_at_rest contains problem(lt, msg) if {
	some i in compute.indices
	lt := input.document.resources[i]
	some m in compute.ebs_mappings(lt)
	not resources.truthy(object.get(m.ebs, "encrypted", false))
	msg := sprintf("EBS mapping %v is not encrypted", [object.get(m, "deviceName", "?")])
}

# the volumes of the nodes a Karpenter EC2NodeClass starts (lib.karpenter: the family's encrypted
# defaults when it gives no mappings)
_at_rest contains problem(nc, msg) if {
	some i in karpenter.node_class_indices
	nc := input.document.resources[i]
	some m in karpenter.ebs_mappings(nc)
	not resources.truthy(object.get(m.ebs, "encrypted", false))
	msg := sprintf("EBS mapping %v is not encrypted", [m.deviceName])
}

_at_rest contains problem(v, "EBS volume is not encrypted") if {
	some v in resources.of_type(input.document, "aws:ebs/volume:Volume")
	not resources.truthy(object.get(v.inputs, "encrypted", false))
}

# the EBS CSI driver leaves volumes unencrypted unless parameters.encrypted is "true"
_at_rest contains problem(sc, "EBS StorageClass does not set parameters.encrypted \"true\"") if {
	some sc in resources.of_type(input.document, storage_class)
	sc.inputs.provisioner in ebs_csi
	not resources.truthy(object.get(sc.inputs, ["parameters", "encrypted"], false))
}

_at_rest contains problem(lg, "log group is not encrypted with a KMS key (kmsKeyId)") if {
	some lg in audit.log_groups
	object.get(lg.inputs, "kmsKeyId", "") == ""
}

# Data stores of other services and the input that encrypts them at rest (pulumi-aws; each is
# unencrypted when it is unset; an SNS topic's messages are stored until delivered). Values
# unknown until apply are not true, so they are reported.
encrypted_stores := {
	"aws:rds/instance:Instance": "storageEncrypted",
	"aws:rds/cluster:Cluster": "storageEncrypted",
	"aws:docdb/cluster:Cluster": "storageEncrypted",
	"aws:neptune/cluster:Cluster": "storageEncrypted",
	"aws:efs/fileSystem:FileSystem": "encrypted",
	"aws:ebs/snapshotImport:SnapshotImport": "encrypted",
	"aws:sns/topic:Topic": "kmsMasterKeyId",
}

_unencrypted_because := {
	"storageEncrypted": "storageEncrypted is not true",
	"encrypted": "encrypted is not true",
	"kmsMasterKeyId": "no kmsMasterKeyId: SNS encrypts a topic's messages only with a KMS key",
}

_at_rest contains problem(r, msg) if {
	some type, field in encrypted_stores
	some i in resources.indices(type)
	r := input.document.resources[i]
	not _store_encrypted(r, field)
	msg := sprintf("%s is not encrypted at rest (%s)", [type, _unencrypted_because[field]])
}

_store_encrypted(r, field) if resources.truthy(object.get(r.inputs, field, false))

_store_encrypted(r, "kmsMasterKeyId") if object.get(r.inputs, "kmsMasterKeyId", "") != ""

# a cross-region read replica ignores storageEncrypted: the kmsKeyId it names encrypts it
_store_encrypted(r, "storageEncrypted") if {
	r.type == "aws:rds/instance:Instance"
	object.get(r.inputs, "kmsKeyId", "") != ""
}

# Aurora Serverless v1 clusters are always encrypted
_store_encrypted(r, "storageEncrypted") if {
	r.type == "aws:rds/cluster:Cluster"
	object.get(r.inputs, "engineMode", "") == "serverless"
}

# AWS services whose resources configure rather than store data, or whose data stores the rules
# above check (buckets, volumes, launch templates and instances, log groups).
configuration_services := {
	"acm", "alb", "autoscaling", "backup", "budgets", "cloudtrail", "cloudwatch", "ebs", "ec2", "eks",
	"elb", "iam", "kms", "lb", "route53", "s3", "shield", "vpc", "waf", "wafregional", "wafv2",
}

# Types of data-store services that hold no data themselves: subnet, parameter and option groups
# (configuration), and Secrets Manager, which encrypts every secret with KMS whatever its inputs
configuration_types := {
	"aws:rds/subnetGroup:SubnetGroup", "aws:rds/parameterGroup:ParameterGroup",
	"aws:rds/clusterParameterGroup:ClusterParameterGroup", "aws:rds/optionGroup:OptionGroup",
	"aws:elasticache/subnetGroup:SubnetGroup", "aws:elasticache/parameterGroup:ParameterGroup",
	"aws:docdb/subnetGroup:SubnetGroup", "aws:docdb/clusterParameterGroup:ClusterParameterGroup",
	"aws:neptune/subnetGroup:SubnetGroup", "aws:neptune/parameterGroup:ParameterGroup",
	"aws:neptune/clusterParameterGroup:ClusterParameterGroup",
	"aws:secretsmanager/secret:Secret", "aws:secretsmanager/secretVersion:SecretVersion",
	"aws:secretsmanager/secretPolicy:SecretPolicy", "aws:secretsmanager/secretRotation:SecretRotation",
}

# a cluster instance stores nothing of its own: its cluster's storage, whose encryption the rules
# above check, holds the data
_cluster_of_instance := {
	"aws:rds/clusterInstance:ClusterInstance": "aws:rds/cluster:Cluster",
	"aws:docdb/clusterInstance:ClusterInstance": "aws:docdb/cluster:Cluster",
	"aws:neptune/clusterInstance:ClusterInstance": "aws:neptune/cluster:Cluster",
}

# an instance of a cluster the document holds (tied by its clusterIdentifier), so judged there
_in_checked_cluster(r) if {
	some c in resources.indices(_cluster_of_instance[r.type])
	cluster := input.document.resources[c]
	_names_cluster(r, cluster)
}

_names_cluster(r, cluster) if routing.refers(r, "clusterIdentifier", cluster)

# (unlike lib.public_access's tie, which fails closed by tying more, this one excuses a finding, so a
# name the document does not show ties nothing: two "[unknown]" are not the same cluster)
_names_cluster(r, cluster) if {
	id := object.get(r.inputs, "clusterIdentifier", null)
	is_string(id)
	id != ""
	not resources.hidden(id)
	id == object.get(cluster.inputs, "clusterIdentifier", "")
}

# Data stores of those services that the rules above do not check: S3 directory buckets (S3 Express
# One Zone; lib.s3 reads general purpose buckets only), with why, for the message
unchecked_stores_of_configuration_services := {
	directory_bucket: "the S3 rules read general purpose buckets only, and a directory bucket encrypts with SSE-S3 unless its default encryption is set to SSE-KMS",
}

# Resources that hold personal (or internal) data, by their data-class tag, but are of a type no
# rule here checks for encryption at rest: a data store of another service, or any aws-native
# resource (the rules read pulumi-aws types only). Whether it is encrypted cannot be established:
# reported. (Rules rather than one function taking the classes: called with two different sets in
# one query, such a function gave the second control no findings under regorus where OPA gave them.)
unchecked_personal_stores := {p | some p in _unchecked_stores; p.class == "personal"}

unchecked_sensitive_stores := {p | some p in _unchecked_stores; p.class in {"personal", "internal"}}

_unchecked_stores contains object.union(problem(r, msg), {"class": class}) if {
	some type in resources.types
	_unchecked_type(type)
	some i in resources.indices(type)
	r := input.document.resources[i]
	class := resources.class_at[i]
	class in {"personal", "internal"}
	not _in_checked_cluster(r)
	msg := sprintf(
		"%s-data %s: no rule here checks this type's encryption at rest%s, so it cannot be established; encrypt it, then waive this finding with the evidence",
		[class, type, _unchecked_why(type)],
	)
}

_unchecked_why(type) := sprintf(" (%s)", [unchecked_stores_of_configuration_services[type]]) if {
	type in object.keys(unchecked_stores_of_configuration_services)
} else := ""

_unchecked_type(type) if {
	startswith(type, "aws:")
	not type in object.keys(encrypted_stores)
	not type in configuration_types
	not split(split(type, ":")[1], "/")[0] in configuration_services
}

_unchecked_type(type) if type in object.keys(unchecked_stores_of_configuration_services)

_unchecked_type(type) if {
	startswith(type, "aws-native:")
	not type in object.keys(audit.log_group_types) # judged as pulumi-aws's
}

# ---------------------------------------------------------------- volume claims

# Kubernetes volume claims of the given data classes whose volumes are not shown to come from an
# encrypted StorageClass of the document: PersistentVolumeClaims (patches too), the
# volumeClaimTemplates of StatefulSets (and of any workload kind that has them) and the generic
# ephemeral volumes of pod specs. A claim passes when its storageClassName names a StorageClass of
# the document that the rules judge: one of the EBS CSI driver (whose parameters.encrypted the
# StorageClass rule above checks) or a local one (kubernetes.io/no-provisioner: the nodes' own
# disks, whose instance-store encryption MLPS-L3-8.1.4.10 checks). A class outside the document
# (EKS's pre-installed gp2 is unencrypted), no storageClassName (the cluster's default class,
# which is not in the document), "" (a pre-provisioned volume without a class), a class of another
# provisioner, or a name unknown until apply that no property dependency ties to a class of the
# document: the encryption of its volumes cannot be established. A rule by class, as _unversioned.
unencrypted_claims(_, classes) := {p | some class in classes; some p in object.get(_claim_problems, class, set())}

_claim_problems[c.class] contains problem(input.document.resources[c.at], msg) if {
	some c in _claims
	c.class in {"personal", "internal"}
	gap := _claim_gap(c)
	msg := sprintf("%s-data %s %s; name an encrypted StorageClass of the stack in storageClassName", [c.class, c.noun, gap])
}

# the names of the document's StorageClasses, and the provisioners of those with a name (a set:
# two classes of the document may share a name, in different clusters)
_storage_class_names := {resources.name_of(sc) | some sc in resources.of_type(input.document, storage_class)}

_provisioners(name) := {object.get(sc.inputs, "provisioner", "(none)") |
	some sc in resources.of_type(input.document, storage_class)
	resources.name_of(sc) == name
}

_storage_class_urns := {sc.urn | some sc in resources.of_type(input.document, storage_class)}

# the provisioner of local volumes (the nodes' own disks)
_local_provisioner := "kubernetes.io/no-provisioner"

# why the claim's volumes are not shown encrypted; undefined when they are
_claim_gap(c) := sprintf("has a spec that is %s, so the StorageClass of its volumes cannot be established", [resources.hidden_why(c.spec)]) if {
	resources.hidden(c.spec)
} else := "does not set storageClassName, so the StorageClass of the claim it patches, which is not in the document, cannot be established" if {
	is_object(c.spec)
	object.get(c.spec, "storageClassName", null) == null
	c.patch
} else := "names no storageClassName, so its volumes come from the cluster's default StorageClass, which is not in the document (EKS's pre-installed gp2 is unencrypted), and their encryption cannot be established" if {
	is_object(c.spec)
	object.get(c.spec, "storageClassName", null) == null
} else := "sets storageClassName \"\", so it binds a pre-provisioned PersistentVolume without a class, whose encryption the document does not show" if {
	c.spec.storageClassName == ""
} else := sprintf("has a storageClassName that is %s, so the encryption of its volumes cannot be established", [resources.hidden_why(name)]) if {
	name := c.spec.storageClassName
	resources.hidden(name)
	count({u | some u in c.deps; u in _storage_class_urns}) == 0
} else := sprintf("names StorageClass %v, which is not in the document, so the encryption of its volumes cannot be established%s", [name, _known_class_note(name)]) if {
	name := c.spec.storageClassName
	resources.shown(name)
	not name in _storage_class_names
} else := sprintf("names StorageClass %v, whose provisioner %s is neither the EBS CSI driver nor local volumes, so the encryption of its volumes cannot be established", [name, concat(", ", unjudged)]) if {
	name := c.spec.storageClassName
	unjudged := sort([sprintf("%v", [p]) | some p in _provisioners(name); not p in ebs_csi; p != _local_provisioner])
	count(unjudged) > 0
}

_known_class_note(name) := " (EKS's pre-installed gp2 class is unencrypted)" if name == "gp2" else := ""

# Claims: {at: position, noun, spec: the claim's spec, class: the most protected of its own, its
# object's and its namespace's data class, deps: the URNs the spec input depends on, patch}
_claims contains claim if {
	some i in resources.kind_indices("PersistentVolumeClaim")
	r := input.document.resources[i]
	claim := {
		"at": i,
		"noun": object.get({true: "PersistentVolumeClaim patch"}, _patch(r), "PersistentVolumeClaim"),
		"spec": object.get(r.inputs, "spec", {}),
		"class": _most_protected({object.get(resources.class_at, i, ""), _namespace_class(r)}),
		"deps": object.get(r, ["property_dependencies", "spec"], []),
		"patch": _patch(r),
	}
}

_patch(r) := true if resources.is_patch(r) else := false

_claims contains claim if {
	some t in resources.workload_types
	some i in resources.indices(t)
	w := input.document.resources[i]
	some [noun, own, spec] in _template_claims(w)
	claim := {
		"at": i,
		"noun": noun,
		"spec": spec,
		"class": _most_protected({object.get(resources.class_at, i, ""), own, _namespace_class(w)}),
		"deps": object.get(w, ["property_dependencies", "spec"], []),
		"patch": false,
	}
}

# [noun, own data class, claim spec] of the claim templates under a workload's spec: every
# volumeClaimTemplates list (StatefulSets, and the custom kinds that copy them), and the
# volumeClaimTemplate of each generic ephemeral volume. A template list or template unknown until
# apply, and a StatefulSet whose spec is, count as a claim with a spec not shown.
_template_claims(w) := array.concat([claim |
	spec := object.get(w.inputs, "spec", {})
	some path, v
	walk(spec, [path, v])
	count(path) > 0
	path[count(path) - 1] in {"volumeClaimTemplates", "volumeClaimTemplate"}
	not "metadata" in path
	some claim in _claims_at(spec, path, v)
], _hidden_statefulset(w))

_claims_at(spec, path, v) := _templates_in(v) if {
	path[count(path) - 1] == "volumeClaimTemplates"
} else := [[noun, own, _template_spec(v)]] if {
	count(path) > 1
	path[count(path) - 2] == "ephemeral"
	volume := object.get(spec, array.slice(path, 0, count(path) - 2), {})
	noun := sprintf("ephemeral volume %v", [object.get(resources.as_object(volume), "name", "(unnamed)")])
	own := resources.normalise_class(object.get(resources.as_object(v), ["metadata", "labels", "seedance.io/data-class"], ""))
} else := []

_templates_in(v) := [["volume claim templates", "", v]] if {
	resources.hidden(v)
} else := [[noun, own, spec] |
	some e in resources.elements(v)
	noun := sprintf("volume claim template %v", [object.get(resources.as_object(e), ["metadata", "name"], "(unnamed)")])
	own := resources.normalise_class(object.get(resources.as_object(e), ["metadata", "labels", "seedance.io/data-class"], ""))
	spec := _template_spec(e)
]

_template_spec(e) := e if resources.hidden(e) else := object.get(resources.as_object(e), "spec", {})

_hidden_statefulset(w) := [["StatefulSet", "", spec]] if {
	resources.kind(w.type) == "StatefulSet"
	spec := object.get(w.inputs, "spec", {})
	resources.hidden(spec)
} else := []

# the data class of the namespace an object is in: a Namespace of the document's; one whose name is
# unknown until apply may be any of them; a cluster-wide template runs pods in all of them
_namespace_class(r) := _most_protected({c | some _, c in _namespace_classes}) if {
	resources.kind(r.type) in resources.cluster_scoped_workload_kinds
} else := _most_protected({c | some _, c in _namespace_classes}) if {
	resources.hidden(resources.namespace(r))
} else := object.get(_namespace_classes, resources.namespace(r), "")

# (two Namespaces of the document may share a name, in different clusters: the most protected counts)
_namespace_classes := {name: _most_protected(object.get(_namespace_class_sets, name, set())) | some name, _ in _namespace_class_sets}

_namespace_class_sets[name] contains object.get(resources.class_at, i, "") if {
	some i in resources.indices("kubernetes:core/v1:Namespace")
	name := resources.name_of(input.document.resources[i])
}

# the most protected of a set of data classes ("" for none)
_most_protected(classes) := ["", "public", "internal", "personal"][max({_class_rank[c] | some c in classes} | {0})]

_class_rank := {"": 0, "public": 1, "internal": 2, "personal": 3}

# ---------------------------------------------------------------- encryption in transit

# ELB security policies that refuse TLS below 1.2 (an allow-list: a policy not named here, such as
# ELBSecurityPolicy-TLS13-1-0-2021-06 or -TLS13-1-1-2021-06, may negotiate TLS 1.0 or 1.1).
# ELBSecurityPolicy-TLS13-1-2-*, -TLS13-1-3-*, -TLS-1-2-*, -FS-1-2-* and their FIPS variants.
tls12_policy(policy) if {
	is_string(policy)
	regex.match(`^ELBSecurityPolicy-(TLS13-1-[23]|TLS-1-2|FS-1-2)(-|$)`, policy)
}

# the policy an HTTPS or TLS listener gets when it names none (pulumi-aws / the ELB API default)
default_ssl_policy := "ELBSecurityPolicy-2016-08"

listener_types := {"aws:lb/listener:Listener", "aws:alb/listener:Listener"}

in_transit(_) := _in_transit

_in_transit contains problem(b, _no_plaintext_deny(i)) if {
	some i in s3.bucket_indices - _denies_plaintext
	not i in _secret_policy_buckets
	b := input.document.resources[i]
}

# the message, with why the policy's aws:SecureTransport denies (if any) leave requests out
_no_plaintext_deny(i) := sprintf("bucket policy does not deny requests without TLS (aws:SecureTransport false) to everyone on every object: %s; deny s3:* to Principal \"*\" on the bucket's ARN/*", [concat("; ", sort(gaps))]) if {
	gaps := {sprintf("its statement %s %s", [_sid(st), concat(" and ", sort(why))]) |
		some st in s3.policy_statements(i)
		s3.plaintext_deny(st)
		why := s3.plaintext_deny_gaps(st, i)
	}
	count(gaps) > 0
} else := "bucket policy does not deny requests without TLS (aws:SecureTransport false)"

_sid(st) := sprintf("'%s'", [st.Sid]) if is_string(object.get(st, "Sid", null)) else := "(no Sid)"

_in_transit contains problem(b, "bucket policy is secret, so a deny of requests without TLS (aws:SecureTransport false) cannot be established") if {
	some i in _secret_policy_buckets - _denies_plaintext
	b := input.document.resources[i]
}

# positions of the buckets a secret bucket policy applies to
_secret_policy_buckets contains b if {
	some p in s3.secret_policies
	some b in s3.config_buckets(p)
}

# positions of the buckets whose policy denies requests without TLS
_denies_plaintext contains b if {
	some p, statements in s3.policy_documents(input.document)
	some st in statements
	s3.plaintext_deny(st)
	some b in s3.config_buckets(p)
	s3.denies_insecure_transport(st, b)
}

_in_transit contains problem(l, msg) if {
	some l in resources.of_types(input.document, listener_types)
	protocol := upper(sprintf("%v", [object.get(l.inputs, "protocol", "HTTP")]))
	not protocol in {"HTTPS", "TLS"}
	not redirects_to_https(l)
	msg := _plain_listener("load balancer listener", object.get(l.inputs, "protocol", "HTTP"), "HTTPS/TLS")
}

listener_rule_types := {"aws:lb/listenerRule:ListenerRule", "aws:alb/listenerRule:ListenerRule"}

# an HTTP listener that only answers with a redirect to HTTPS (port 80 of an HTTPS load balancer)
# carries no data in the clear: every default action redirects to HTTPS, and no listener rule that
# may be attached to it does anything else (a rule tied to another listener of the document, and not
# to this one, is not)
redirects_to_https(l) if {
	_https_redirects_only(object.get(l.inputs, "defaultActions", []))
	not _other_rule_on(l)
}

_https_redirects_only(actions) if {
	is_array(actions)
	count(actions) > 0
	every a in actions {
		object.get(a, "type", "") == "redirect"
		upper(sprintf("%v", [object.get(a, ["redirect", "protocol"], "")])) == "HTTPS"
	}
}

_other_rule_on(l) if {
	some r in resources.of_types(input.document, listener_rule_types)
	not _https_redirects_only(object.get(r.inputs, "actions", []))
	not _on_another_listener(r, l)
	not _on_a_listener_outside(r, l)
}

# a rule whose listenerArn is shown and names no listener of the document (another stack's shared
# listener, by its ARN) is not on this one
_on_a_listener_outside(r, l) if {
	arn := object.get(r.inputs, "listenerArn", null)
	resources.settled(arn)
	not routing.refers(r, "listenerArn", l)
	not _names_a_listener(arn)
}

_names_a_listener(arn) if {
	some other in resources.of_types(input.document, listener_types)
	routing.names(arn, other)
}

_on_another_listener(r, l) if {
	not routing.refers(r, "listenerArn", l)
	some other in resources.of_types(input.document, listener_types)
	other.urn != l.urn
	routing.refers(r, "listenerArn", other)
}

# "NOUN uses HTTP, not HTTPS/TLS"; a protocol the document does not show: "NOUN: its protocol is secret, ..."
_plain_listener(noun, raw, wanted) := sprintf("%s: its protocol is %s, so %s cannot be established", [noun, resources.hidden_why(raw), wanted]) if {
	resources.hidden(raw)
} else := sprintf("%s uses %s, not %s", [noun, protocol, wanted]) if protocol := upper(sprintf("%v", [raw]))

_in_transit contains problem(l, msg) if {
	some l in resources.of_types(input.document, listener_types)
	upper(sprintf("%v", [object.get(l.inputs, "protocol", "HTTP")])) in {"HTTPS", "TLS"}
	policy := object.get(l.inputs, "sslPolicy", "")
	policy != ""
	not tls12_policy(policy)
	msg := _tls_policy_message(policy)
}

_tls_policy_message(policy) := sprintf("listener TLS policy is %s, so refusing TLS below 1.2 cannot be established", [resources.hidden_why(policy)]) if {
	resources.hidden(policy)
} else := sprintf("listener TLS policy %v allows TLS below 1.2", [policy])

_in_transit contains problem(l, msg) if {
	some l in resources.of_types(input.document, listener_types)
	upper(sprintf("%v", [object.get(l.inputs, "protocol", "HTTP")])) in {"HTTPS", "TLS"}
	object.get(l.inputs, "sslPolicy", "") == ""
	msg := sprintf("listener names no sslPolicy, so it gets %s, which allows TLS 1.0", [default_ssl_policy])
}

# classic load balancers: every listener's front end speaks HTTPS or SSL
_in_transit contains problem(lb, msg) if {
	some i in transit.classic_lb_indices
	lb := input.document.resources[i]
	some l in resources.elements(object.get(lb.inputs, "listeners", []))
	is_object(l)
	protocol := upper(sprintf("%v", [object.get(l, "lbProtocol", "HTTP")]))
	not protocol in {"HTTPS", "SSL"}
	noun := sprintf("classic load balancer listener on port %v", [object.get(l, "lbPort", "?")])
	msg := _plain_listener(noun, object.get(l, "lbProtocol", "HTTP"), "HTTPS/SSL")
}

# listeners, or a listener, the document does not show may speak plain HTTP
_in_transit contains problem(lb, msg) if {
	some i in transit.classic_lb_indices
	lb := input.document.resources[i]
	listeners := object.get(lb.inputs, "listeners", [])
	some v in array.concat([listeners], resources.elements(listeners))
	resources.hidden(v)
	msg := sprintf("classic load balancer listeners are %s, so HTTPS/SSL cannot be established", [resources.hidden_why(v)])
}

# An HTTPS/SSL listener of a classic load balancer that the document gives no SSL negotiation
# policy gets ELBSecurityPolicy-2016-08 (AWS, Classic Load Balancers guide, "Update the SSL
# negotiation configuration of your Classic Load Balancer"), which allows TLS 1.0 and 1.1 (same
# guide, "SSL negotiation configurations for Classic Load Balancers": the default policy supports
# TLS 1.2 and earlier versions; "Predefined SSL security policies ...": its protocol table).
_in_transit contains problem(lb, msg) if {
	some [i, l, protocol, policies] in _classic_tls_listeners
	count(policies) == 0
	lb := input.document.resources[i]
	msg := sprintf(
		"classic load balancer %s listener on port %v has no SSL negotiation policy in the stack, so it gets %s, which allows TLS 1.0",
		[protocol, object.get(l, "lbPort", "?"), default_ssl_policy],
	)
}

# Every SSL negotiation policy the document sets on such a listener must refuse TLS below 1.2:
# each resource sets the listener's policies anew, so which one is applied last, and holds, is not
# in the document.
_in_transit contains problem(lb, msg) if {
	some [i, l, protocol, policies] in _classic_tls_listeners
	some p in policies
	not _classic_refuses_old_tls(p)
	lb := input.document.resources[i]
	msg := sprintf(
		"classic load balancer %s listener on port %v: SSL negotiation policy %v %s",
		[protocol, object.get(l, "lbPort", "?"), p.name, _classic_policy_problem(p)],
	)
}

# [position, listener, protocol, the SSL negotiation policies the document sets on it] of the
# HTTPS and SSL listeners of the classic load balancers
_classic_tls_listeners contains [i, l, protocol, policies] if {
	some i in transit.classic_lb_indices
	some l in resources.elements(object.get(input.document.resources[i].inputs, "listeners", []))
	is_object(l)
	protocol := upper(sprintf("%v", [object.get(l, "lbProtocol", "HTTP")]))
	protocol in {"HTTPS", "SSL"}
	policies := object.get(transit.listener_policies, transit.listener_key(i, object.get(l, "lbPort", "?")), set())
}

# The protocols older than TLS 1.2 that a classic SSL negotiation policy has an attribute for.
# A policy refuses them when it references a predefined policy that does (Reference-Security-Policy)
# and enables none of them itself, or when it is a custom policy that sets each to "false": the
# Classic Load Balancers guide does not say what a custom policy enables for a protocol it leaves
# out, so one left out is not taken to be off.
_old_protocols := ["Protocol-SSLv3", "Protocol-TLSv1", "Protocol-TLSv1.1"]

_classic_refuses_old_tls(p) if {
	not p.undeclared
	refs := _attribute_values(p, "Reference-Security-Policy")
	count(refs) > 0
	every ref in refs {
		tls12_policy(ref)
	}
	not _enables_old_protocol(p)
}

_classic_refuses_old_tls(p) if {
	not p.undeclared
	count(_attribute_values(p, "Reference-Security-Policy")) == 0
	every protocol in _old_protocols {
		_attribute_values(p, protocol) == {"false"}
	}
}

# the values a policy gives an attribute (a set: a list may name one twice)
_attribute_values(p, name) := {v |
	some a in p.attributes
	a.name == name
	v := _attribute_value(name, a.value)
}

_attribute_value("Reference-Security-Policy", v) := v

_attribute_value(name, v) := lower(sprintf("%v", [v])) if name != "Reference-Security-Policy"

_enables_old_protocol(p) if {
	some protocol in _old_protocols
	"true" in _attribute_values(p, protocol)
}

_classic_policy_problem(p) := "is not declared in the stack as an SSL negotiation policy of this load balancer, so what it allows cannot be established" if {
	p.undeclared
} else := sprintf("references %s, which allows TLS below 1.2", [concat(", ", sort(refs))]) if {
	refs := _attribute_values(p, "Reference-Security-Policy")
	count(refs) > 0
	some ref in refs
	not tls12_policy(ref)
} else := sprintf("enables %s", [concat(", ", [protocol | some protocol in _old_protocols; "true" in _attribute_values(p, protocol)])]) if {
	_enables_old_protocol(p)
} else := "does not set Protocol-SSLv3, Protocol-TLSv1 and Protocol-TLSv1.1 to \"false\" (what a custom policy enables for a protocol it leaves out is not documented)"

# Kubernetes Services of type LoadBalancer on AWS (the AWS Load Balancer Controller's NLBs and the
# legacy cloud provider's classic load balancers and NLBs): the load balancer terminates TLS only
# with a certificate (service.beta.kubernetes.io/aws-load-balancer-ssl-cert), and then on the ports
# aws-load-balancer-ssl-ports lists, by number or name, or on every port when it lists none (the
# controller's annotation guide, and the legacy provider). Without one it forwards plain TCP.
_in_transit contains problem(svc, msg) if {
	some i in transit.lb_service_indices - _tls_services
	svc := input.document.resources[i]
	msg := sprintf(
		"LoadBalancer Service has no %s annotation, so its load balancer terminates no TLS and carries %s as plain TCP (unless the pods terminate TLS themselves)",
		[transit.ssl_cert_annotation, _service_ports_text(transit.service_ports(svc))],
	)
}

# ports the ssl-ports annotation leaves out get a plain TCP listener
_in_transit contains problem(svc, msg) if {
	some i in _tls_services
	svc := input.document.resources[i]
	count(transit.ssl_ports(svc)) > 0
	not "*" in transit.ssl_ports(svc)
	plain := _plain_ports(svc)
	count(plain) > 0
	msg := sprintf(
		"LoadBalancer Service: %s %q leaves out %s, which the load balancer therefore serves without TLS",
		[transit.ssl_ports_annotation, transit.annotations(svc)[transit.ssl_ports_annotation], _service_ports_text(plain)],
	)
}

# "*": the AWS Load Balancer Controller matches no port with it (its annotation guide; the legacy
# provider reads it as every port), and which of the two serves the Service is not in the document
_in_transit contains problem(svc, msg) if {
	some i in _tls_services
	svc := input.document.resources[i]
	"*" in transit.ssl_ports(svc)
	plain := _plain_ports(svc)
	count(plain) > 0
	msg := sprintf(
		"LoadBalancer Service lists \"*\" in %s, which the AWS Load Balancer Controller matches with no port (the legacy cloud provider with every port), so %s may be served without TLS: list the ports by number or name",
		[transit.ssl_ports_annotation, _service_ports_text(plain)],
	)
}

# TLS listeners are TCP: a UDP port is forwarded as it is
_in_transit contains problem(svc, msg) if {
	some i in _tls_services
	svc := input.document.resources[i]
	some port in transit.service_ports(svc)
	transit.udp(port)
	msg := sprintf("LoadBalancer Service port %v is UDP, which the load balancer forwards without TLS", [object.get(port, "port", "?")])
}

# Without aws-load-balancer-ssl-negotiation-policy the TLS listeners get ELBSecurityPolicy-2016-08:
# the AWS Load Balancer Controller's default (its annotation guide, and its --default-ssl-policy
# flag's default), a classic load balancer's (see above) and that of an NLB TLS listener created
# through the ELB API without one.
_in_transit contains problem(svc, msg) if {
	some i in _tls_services
	svc := input.document.resources[i]
	not transit.annotated(svc, transit.ssl_negotiation_policy_annotation)
	msg := sprintf(
		"LoadBalancer Service sets no %s, so its TLS listeners get %s (the AWS Load Balancer Controller's default unless its --default-ssl-policy changes it, and the ELB API's), which allows TLS 1.0",
		[transit.ssl_negotiation_policy_annotation, default_ssl_policy],
	)
}

_in_transit contains problem(svc, msg) if {
	some i in _tls_services
	svc := input.document.resources[i]
	policy := transit.annotations(svc)[transit.ssl_negotiation_policy_annotation]
	transit.annotated(svc, transit.ssl_negotiation_policy_annotation)
	not tls12_policy(policy)
	msg := sprintf("LoadBalancer Service TLS policy %v (%s) allows TLS below 1.2", [policy, transit.ssl_negotiation_policy_annotation])
}

# positions of the LoadBalancer Services that name a certificate (aws-load-balancer-ssl-cert)
_tls_services := {i |
	some i in transit.lb_service_indices
	transit.annotated(input.document.resources[i], transit.ssl_cert_annotation)
}

# the TCP ports of a Service that its ssl-ports entries do not name
_plain_ports(svc) := [port |
	some port in transit.service_ports(svc)
	not transit.udp(port)
	not transit.named_in_ssl_ports(svc, port)
]

_service_ports_text(ports) := "its ports" if {
	count(ports) == 0
} else := sprintf("port %s", [_port_text(ports[0])]) if {
	count(ports) == 1
} else := sprintf("ports %s", [concat(", ", [_port_text(p) | some p in ports])])

_port_text(p) := sprintf("%v/%s", [object.get(p, "port", "?"), upper(sprintf("%v", [object.get(p, "protocol", "TCP")]))])

# Ingresses the AWS Load Balancer Controller does not serve terminate TLS by spec.tls
_in_transit contains problem(ing, "Ingress has no tls section") if {
	some i in transit.ingress_indices - transit.alb_ingress_indices
	ing := input.document.resources[i]
	count(resources.elements(object.get(ing.inputs, ["spec", "tls"], []))) == 0
}

# Those it serves get the listeners of alb.ingress.kubernetes.io/listen-ports (else HTTPS 443
# with a certificate-arn, HTTP 80 without: spec.tls does not add an HTTPS listener), and an HTTP
# listener serves plain HTTP unless its IngressGroup sets ssl-redirect (the controller's Ingress
# annotation guide).
_in_transit contains problem(ing, msg) if {
	some i in transit.alb_ingress_indices
	not transit.redirected(i)
	ing := input.document.resources[i]
	ports := sort([port | some [protocol, port] in transit.alb_listeners(ing); protocol == "HTTP"])
	count(ports) > 0
	msg := _plain_http_message(ing, ports)
}

_plain_http_message(ing, ports) := sprintf(
	"Ingress listens for plain HTTP on port %s (%s) and its IngressGroup sets no %s",
	[concat(", ", [sprintf("%v", [p]) | some p in ports]), transit.listen_ports_annotation, transit.ssl_redirect_annotation],
) if {
	transit.listen_ports_set(ing)
} else := sprintf(
	"Ingress sets neither %s nor %s, so the AWS Load Balancer Controller gives it one listener, plain HTTP on port 80 (spec.tls adds no HTTPS listener), and its IngressGroup sets no %s",
	[transit.certificate_arn_annotation, transit.listen_ports_annotation, transit.ssl_redirect_annotation],
)

_in_transit contains problem(ing, msg) if {
	some i in transit.alb_ingress_indices
	ing := input.document.resources[i]
	transit.unreadable_listen_ports(ing)
	msg := sprintf(
		"Ingress %s %v is not a JSON list of {\"HTTP\"|\"HTTPS\": port}, so its listeners cannot be established",
		[transit.listen_ports_annotation, transit.annotations(ing)[transit.listen_ports_annotation]],
	)
}

_in_transit contains problem(ing, msg) if {
	some i in transit.alb_ingress_indices
	ing := input.document.resources[i]
	policy := transit.annotations(ing)[transit.ssl_policy_annotation]
	transit.annotated(ing, transit.ssl_policy_annotation)
	not tls12_policy(policy)
	msg := sprintf("Ingress TLS policy %v (%s) allows TLS below 1.2", [policy, transit.ssl_policy_annotation])
}

# HTTPS listeners of an IngressGroup that sets no ssl-policy get the controller's default,
# ELBSecurityPolicy-2016-08 (its Ingress annotation guide, and its --default-ssl-policy flag)
_in_transit contains problem(ing, msg) if {
	some i in transit.alb_ingress_indices
	not transit.group_has_ssl_policy(i)
	ing := input.document.resources[i]
	some [protocol, _] in transit.alb_listeners(ing)
	protocol == "HTTPS"
	msg := sprintf(
		"Ingress has HTTPS listeners but its IngressGroup sets no %s, so they get %s (the AWS Load Balancer Controller's default unless its --default-ssl-policy changes it), which allows TLS 1.0",
		[transit.ssl_policy_annotation, default_ssl_policy],
	)
}

# Gateway API Gateways and ListenerSets: an HTTP listener serves plain HTTP unless the stack's
# routes attached to it only redirect to https; TCP and UDP listeners carry plain traffic; HTTPS
# and TLS ones terminate TLS or pass it through to the pods; a patch leaves the live object's other
# listeners unseen (lib.transit). What TLS versions a Gateway accepts is its implementation's
# (tls.options), which the gate does not read.
_in_transit contains problem(gw, msg) if {
	some i in transit.gateway_indices
	gw := input.document.resources[i]
	some l in transit.gateway_listeners(gw)
	msg := transit.plain_listener(gw, l)
}

_in_transit contains problem(gw, msg) if {
	some i in transit.gateway_indices
	gw := input.document.resources[i]
	msg := transit.patched_listeners(gw)
}

# ---------------------------------------------------------------- backups (versioning)

unversioned_buckets(_, classes) := {p | some class in classes; some p in object.get(_unversioned, class, set())}

# problems by the data class of the bucket
_unversioned[class] contains problem(b, msg) if {
	some i in s3.bucket_indices
	not i in s3.versioned
	b := input.document.resources[i]
	class := resources.data_class(b)
	msg := sprintf("%s-data bucket is not versioned (no recovery from overwrite or deletion)", [class])
}

# S3 directory buckets cannot be versioned (S3 Express One Zone supports no versioning, object lock
# or replication), so overwritten or deleted objects of the given classes cannot be restored
_unversioned[class] contains problem(b, msg) if {
	some i in resources.indices(directory_bucket)
	b := input.document.resources[i]
	class := resources.data_class(b)
	msg := sprintf("%s-data S3 directory bucket cannot be versioned (S3 Express One Zone does not support versioning), so overwritten or deleted objects cannot be restored; keep the data in a general purpose bucket, or waive this finding with the evidence of another copy", [class])
}

directory_bucket := "aws:s3/directoryBucket:DirectoryBucket"

# RDS instances and clusters, DocumentDB and Neptune clusters: automated backups kept
# backupRetentionPeriod days (1 when unset); Redshift clusters: automated snapshots kept
# automatedSnapshotRetentionPeriod days (1 when unset, 0 turns them off)
db_backups(document) := {problem(db, msg) |
	some type, field in _retained_databases
	some db in resources.of_type(document, type)
	days := object.get(db.inputs, field, 1)
	msg := _db_backup_problem(days)
}

_retained_databases := {
	"aws:rds/instance:Instance": "backupRetentionPeriod",
	"aws:rds/cluster:Cluster": "backupRetentionPeriod",
	"aws:docdb/cluster:Cluster": "backupRetentionPeriod",
	"aws:neptune/cluster:Cluster": "backupRetentionPeriod",
	"aws:redshift/cluster:Cluster": "automatedSnapshotRetentionPeriod",
}

# In-memory stores of the given data classes keep automatic snapshots at least 7 days, as
# databases keep backups: ElastiCache replication groups, clusters that belong to none (a member
# is backed up by its group), serverless caches, and MemoryDB clusters keep snapshotRetentionLimit
# days of daily snapshots (0, no snapshots, when unset). ElastiCache does not snapshot Memcached
# node-based clusters, so personal data in one has no backup. A rule by class, as _unversioned.
cache_backups(_, classes) := {p | some class in classes; some p in object.get(_unbacked_caches, class, set())}

_snapshotted_caches := {
	"aws:elasticache/replicationGroup:ReplicationGroup": "ElastiCache replication group",
	"aws:elasticache/cluster:Cluster": "ElastiCache cluster",
	"aws:elasticache/serverlessCache:ServerlessCache": "ElastiCache serverless cache",
	"aws:memorydb/cluster:Cluster": "MemoryDB cluster",
}

_unbacked_caches[class] contains problem(c, msg) if {
	some type, noun in _snapshotted_caches
	some i in resources.indices(type)
	class := resources.class_at[i]
	c := input.document.resources[i]
	not _group_member(c)
	not _memcached_nodes(c)
	days := object.get(c.inputs, "snapshotRetentionLimit", 0)
	msg := _cache_backup_problem(class, noun, days)
}

_unbacked_caches[class] contains problem(c, msg) if {
	some i in resources.indices("aws:elasticache/cluster:Cluster")
	class := resources.class_at[i]
	c := input.document.resources[i]
	not _group_member(c)
	_memcached_nodes(c)
	msg := sprintf("%s-data ElastiCache Memcached cluster keeps no backups (ElastiCache snapshots Valkey and Redis OSS clusters and serverless caches only; at least 7 days required)", [class])
}

_group_member(c) if {
	c.type == "aws:elasticache/cluster:Cluster"
	object.get(c.inputs, "replicationGroupId", "") != ""
}

_memcached_nodes(c) if {
	c.type == "aws:elasticache/cluster:Cluster"
	lower(object.get(c.inputs, "engine", "")) == "memcached"
}

_cache_backup_problem(class, noun, days) := sprintf("%s-data %s keeps no automatic snapshots (snapshotRetentionLimit %v; at least 7 days required)", [class, noun, days]) if {
	resources.number(days) == 0
} else := sprintf("%s-data %s keeps snapshots %v days (snapshotRetentionLimit; at least 7 required)", [class, noun, days]) if {
	resources.number(days) < 7
} else := sprintf("%s-data %s: snapshot retention %v cannot be established (snapshotRetentionLimit; at least 7 days required)", [class, noun, days]) if {
	not resources.number(days)
}

# DynamoDB tables of the given data classes restore only with point-in-time recovery
# (pointInTimeRecovery.enabled; off when unset; a value unknown until apply is not shown on). A
# rule by class, as _unversioned: a comprehension over class_at in the function's head came back
# empty from regorus in the whole gate's query, though not alone.
dynamodb_backups(_, classes) := {p | some class in classes; some p in object.get(_unrecoverable_tables, class, set())}

_unrecoverable_tables[class] contains problem(t, msg) if {
	some i in resources.indices("aws:dynamodb/table:Table")
	class := resources.class_at[i]
	t := input.document.resources[i]
	enabled := object.get(t.inputs, ["pointInTimeRecovery", "enabled"], false)
	not resources.truthy(enabled)
	msg := sprintf("%s-data DynamoDB table has no point-in-time recovery (pointInTimeRecovery.enabled is %v, true required)", [class, enabled])
}

_db_backup_problem(days) := sprintf("database keeps backups %v days (at least 7 required)", [days]) if {
	is_number(days)
	days < 7
}

# a retention the preview does not know yet (or not a number) cannot be shown to be long enough
_db_backup_problem(days) := sprintf("database backup retention %v cannot be established (at least 7 days required)", [days]) if {
	not is_number(days)
}

# ---------------------------------------------------------------- IAM

iam_documents(document) := [[r, d] |
	some r in resources.of_types(document, {"aws:iam/policy:Policy", "aws:iam/rolePolicy:RolePolicy", "aws:iam/userPolicy:UserPolicy", "aws:iam/groupPolicy:GroupPolicy"})
	d := r.inputs.policy
]

iam_statements(_) := _iam_statements

# Allow statements of every IAM policy document, each document parsed once
_iam_statements := [[r, st] |
	some pair in array.concat(iam_documents(input.document), _inline_role_policies(input.document))
	r := pair[0]
	some st in resources.policy_statements(pair[1])
	is_object(st)
	object.get(st, "Effect", "Allow") == "Allow"
]

# [role, policy document] of the roles' inline policies; a secret list or item is a secret document
_inline_role_policies(document) := array.concat([[r, d] |
	some r in resources.of_type(document, "aws:iam/role:Role")
	some p in resources.elements(object.get(r.inputs, "inlinePolicies", []))
	d := _inline_document(p)
], [[r, "[secret]"] |
	some r in resources.of_type(document, "aws:iam/role:Role")
	object.get(r.inputs, "inlinePolicies", []) == "[secret]"
])

_inline_document(p) := p.policy

_inline_document(p) := p if p == "[secret]"

wildcard_admin(document) := {problem(r, _admin_message(res)) |
	some pair in iam_statements(document)
	r := pair[0]
	st := pair[1]
	some a in resources.as_list(object.get(st, "Action", []))
	a in {"*", "*:*"}
	some res in resources.as_list(object.get(st, "Resource", []))
	every_resource(res)
} | {problem(r, msg) |
	# every action but a few: NotAction on every resource
	some pair in _negated_statements
	r := pair[0]
	st := pair[1]
	not_actions := resources.as_list(object.get(st, "NotAction", []))
	count(not_actions) > 0
	some res in resources.as_list(object.get(st, "Resource", []))
	every_resource(res)
	msg := sprintf("IAM policy allows every action except %v on Resource %q (NotAction)", [concat(", ", [sprintf("%v", [x]) | some x in not_actions]), res])
} | {problem(r, msg) |
	# every action on every resource but a few: Action "*" with NotResource
	some pair in _negated_statements
	r := pair[0]
	st := pair[1]
	some a in resources.as_list(object.get(st, "Action", []))
	a in {"*", "*:*"}
	count(resources.as_list(object.get(st, "NotResource", []))) > 0
	msg := "IAM policy allows Action \"*\" on every resource but those in NotResource"
} | {problem(r, msg) |
	some pair in managed_policy_grants
	r := pair[0]
	name := _managed_name(pair[1])
	name in admin_managed_policies
	msg := sprintf("attaches the AWS-managed policy %s, which allows Action \"*\" on Resource \"*\"", [name])
} | {problem(r, msg) |
	# AWS-managed policies that are the NotAction statement above
	some pair in managed_policy_grants
	r := pair[0]
	name := _managed_name(pair[1])
	not_actions := all_but_managed_policies[name]
	msg := sprintf("attaches the AWS-managed policy %s, which allows every action except %s on Resource \"*\" (NotAction)", [name, not_actions])
} | {problem(r, msg) |
	# a secret policy document may allow Action "*" on Resource "*": judged as the worst it could
	# hold (fail closed). One unknown until apply stays judged as absent (README, Known limits: it
	# would block every first deploy, and the next preview shows it); a secret no preview shows.
	some pair in array.concat(iam_documents(document), _inline_role_policies(document))
	r := pair[0]
	pair[1] == "[secret]"
	msg := "IAM policy document is secret, so administrator access (Action \"*\" on Resource \"*\") cannot be ruled out"
} | {problem(r, msg) |
	# a document whose Statement, a statement, or a statement's Effect, Action or Resource is secret
	some pair in array.concat(iam_documents(document), _inline_role_policies(document))
	r := pair[0]
	_secret_in_part(pair[1])
	msg := "IAM policy document is secret in part, so administrator access (Action \"*\" on Resource \"*\") cannot be ruled out"
} | {problem(r, msg) |
	# a secret managed-policy ARN may name AdministratorAccess. One unknown until apply is left:
	# it is another resource's output (an aws:iam/policy:Policy's arn, whose document is judged)
	some pair in managed_policy_grants
	r := pair[0]
	pair[1] == "[secret]"
	msg := "attaches a managed policy whose ARN is secret, so administrator access (Action \"*\" on Resource \"*\") cannot be ruled out"
}

_secret_in_part(d) if resources.json_object(d).Statement == "[secret]"

_secret_in_part(d) if "[secret]" in resources.policy_statements(d)

_secret_in_part(d) if {
	some st in resources.policy_statements(d)
	is_object(st)
	object.get(st, "Effect", "Allow") in {"Allow", "[secret]"}
	actions := resources.as_list(object.get(st, "Action", []))
	targets := resources.as_list(object.get(st, "Resource", []))
	_secret_or_admin_action(actions)
	_secret_or_every_resource(targets)
	"[secret]" in array.concat(array.concat(actions, targets), [object.get(st, "Effect", "Allow")])
}

_secret_or_admin_action(actions) if "[secret]" in actions

_secret_or_admin_action(actions) if {
	some a in actions
	a in {"*", "*:*"}
}

_secret_or_every_resource(targets) if "[secret]" in targets

_secret_or_every_resource(targets) if {
	some res in targets
	every_resource(res)
}

# the Allow statements with a NotAction or NotResource (few: one pass over the statements finds them)
_negated_statements := [pair |
	some pair in _iam_statements
	_negated(pair[1])
]

_negated(st) if st.NotAction

_negated(st) if st.NotResource

# AWS-managed policies that amount to Action "*" on Resource "*"
admin_managed_policies := {"AdministratorAccess"}

# AWS-managed policies that allow every action but a few on Resource "*" (a NotAction statement),
# and the actions they leave out (PowerUserAccess: its second statement adds a few IAM actions)
all_but_managed_policies := {"PowerUserAccess": "iam:*, organizations:*, account:*"}

# AWS-managed policies that allow iam:* (and so iam:PassRole) on every role
iam_full_managed_policies := {"AdministratorAccess", "IAMFullAccess"}

# [resource, policy ARN] for every managed policy a resource attaches: the policy attachment
# resources and a role's managedPolicyArns
managed_policy_grants := array.concat(
	[[r, arn] |
		some r in resources.of_types(input.document, _attachment_types)
		arn := object.get(r.inputs, "policyArn", "")
	],
	_role_grants,
)

_attachment_types := {
	"aws:iam/rolePolicyAttachment:RolePolicyAttachment",
	"aws:iam/userPolicyAttachment:UserPolicyAttachment",
	"aws:iam/groupPolicyAttachment:GroupPolicyAttachment",
	"aws:iam/policyAttachment:PolicyAttachment",
}

_role_grants := array.concat([[r, arn] |
	some r in resources.of_type(input.document, "aws:iam/role:Role")
	arns := object.get(r.inputs, "managedPolicyArns", [])
	is_array(arns)
	some arn in arns
], [[r, "[secret]"] |
	some r in resources.of_type(input.document, "aws:iam/role:Role")
	object.get(r.inputs, "managedPolicyArns", []) == "[secret]"
])

# arn:aws:iam::aws:policy/AdministratorAccess (any partition, any path) -> AdministratorAccess
_managed_name(arn) := name if {
	is_string(arn)
	regex.match(`^arn:aws[a-z-]*:iam::aws:policy/`, arn)
	parts := split(arn, "/")
	name := parts[count(parts) - 1]
}

# iam:PassRole through an action wildcard (iam:*, iam:Pass*, iam:*Role) on any role: Resource "*"
# or a role ARN whose account and role name are wildcards (arn:aws:iam::*:role/*); Action "*" on
# Resource "*" is reported as admin already
wildcard_passrole(document) := {problem(r, msg) |
	some pair in iam_statements(document)
	r := pair[0]
	st := pair[1]
	some a in resources.as_list(object.get(st, "Action", []))
	is_string(a)
	glob.match(lower(a), [], "iam:passrole")
	some res in resources.as_list(object.get(st, "Resource", []))
	_any_role(res)
	not _admin(a, res)
	msg := sprintf("IAM policy allows iam:PassRole on any role (Resource %q)", [res])
} | {problem(r, msg) |
	some pair in managed_policy_grants
	r := pair[0]
	name := _managed_name(pair[1])
	name in iam_full_managed_policies
	not name in admin_managed_policies
	msg := sprintf("attaches the AWS-managed policy %s, which allows iam:PassRole on any role", [name])
}

_any_role(res) if res == "*"

_any_role(res) if {
	is_string(res)
	regex.match(`^arn:[^:]*:(iam|\*)?:[^:]*:[^:]*:(\*|role/\*)$`, res)
}

# Action "*" on every resource: wildcard_admin reports it
_admin(action, resource) if {
	action in {"*", "*:*"}
	every_resource(resource)
}

# a Resource that names every resource: "*", or an ARN of wildcards in every part (arn:aws:*:*:*:*)
every_resource(res) if res == "*"

every_resource(res) if {
	is_string(res)
	regex.match(`^arn:(\*|aws[a-z-]*):\*:\*:\*:\*$`, res)
}

_admin_message(res) := "IAM policy allows Action \"*\" on Resource \"*\"" if {
	res == "*"
} else := sprintf("IAM policy allows Action \"*\" on every resource (Resource %q)", [res])

# launch templates, instances and spot instance requests alike, and Karpenter's EC2NodeClasses.
# A rule, not a comprehension in the function's head: regorus 0.13 returned the comprehension
# empty in a query that had evaluated other controls first (the whole gate's), though not alone.
imdsv1(_) := _imdsv1

_imdsv1 contains problem(lt, msg) if {
	some i in compute.indices
	lt := input.document.resources[i]
	not _tokens_in_unseen_template(i, lt) # reported below as not checked, not as "optional"
	tokens := compute.http_tokens(lt)
	tokens != "required"
	msg := _imds_message(compute.noun(lt), tokens, sprintf("%q", [tokens]))
}

# "NOUN allows IMDSv1 (...)"; a setting the document does not show may be "optional"
_imds_message(noun, tokens, text) := sprintf("%s may allow IMDSv1: metadataOptions.httpTokens is %s, so \"required\" cannot be established", [noun, resources.hidden_why(tokens)]) if {
	resources.hidden(tokens)
} else := sprintf("%s allows IMDSv1 (metadataOptions.httpTokens is %s, not \"required\")", [noun, text])

# an instance whose launch template the document does not hold takes that template's httpTokens
# where it sets none
_tokens_in_unseen_template(i, r) if {
	some [j, _] in compute.unseen_launch_sources
	j == i
	not compute.overrides_template(r, ["metadataOptions", "httpTokens"])
}

_imdsv1 contains compute.unseen_launch_problem(i, ref, "its instance metadata options (IMDSv2)") if {
	some [i, ref] in compute.unseen_launch_sources
	not compute.overrides_template(input.document.resources[i], ["metadataOptions", "httpTokens"])
}

_imdsv1 contains problem(nc, msg) if {
	some i in karpenter.node_class_indices
	nc := input.document.resources[i]
	tokens := karpenter.http_tokens(nc)
	tokens != "required"
	msg := _imds_message("EC2NodeClass", tokens, sprintf("%v", [tokens]))
}

# ---------------------------------------------------------------- public buckets

public_buckets(_, classes) := {p | some class in classes; some p in object.get(_public, class, set())}

pab_flags := ["blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"]

# problems by the data class of the bucket
_public[class] contains problem(b, "bucket has no public access block") if {
	some i in s3.bucket_indices
	not i in s3.has_public_access_block
	b := input.document.resources[i]
	not _account_blocks_all(b)
	class := resources.data_class(b)
}

_public[class] contains problem(b, msg) if {
	some c in resources.indices("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock")
	some flag in pab_flags
	not resources.truthy(object.get(input.document.resources[c].inputs, flag, false))
	msg := sprintf("public access block leaves %s off", [flag])
	some i in s3.config_buckets(c)
	b := input.document.resources[i]
	not _account_blocks(flag, b)
	class := resources.data_class(b)
}

# S3 applies the most restrictive of the account's and the bucket's public access blocks: an
# account-level block of the document for the stack's own account (no accountId, or the policy's
# cloud.accountId) turns a flag on for every bucket of the account: the buckets created under the
# block's own provider (a provider of another account, allowedAccountIds or assumeRole, puts both
# the block and its buckets in that account, so a block counts only for buckets of its provider)
_account_blocks(flag, b) if {
	some a in _own_account_blocks
	resources.provider_key(a) == resources.provider_key(b)
	resources.truthy(object.get(a.inputs, flag, false))
}

_account_blocks_all(b) if {
	some a in _own_account_blocks
	resources.provider_key(a) == resources.provider_key(b)
	every flag in pab_flags {
		resources.truthy(object.get(a.inputs, flag, false))
	}
}

_own_account_blocks contains a if {
	some c in resources.indices("aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock")
	a := input.document.resources[c]
	_of_own_account(object.get(a.inputs, "accountId", null))
}

_of_own_account(null) := true

_of_own_account(id) if {
	is_string(id)
	id == object.get(input.policy, ["cloud", "accountId"], null)
}

public_grantees := {"http://acs.amazonaws.com/groups/global/AllUsers", "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"}

public_canned := {"public-read", "public-read-write", "authenticated-read"}

_public[class] contains problem(b, msg) if {
	some t in s3.acl_types
	some c in resources.indices(t)
	_acl_public(input.document.resources[c].inputs)
	msg := "bucket ACL grants access to AllUsers or AuthenticatedUsers"
	some i in s3.config_buckets(c)
	b := input.document.resources[i]
	class := resources.data_class(b)
}

_acl_public(inputs) if object.get(inputs, "acl", "private") in public_canned

_acl_public(inputs) if {
	some g in resources.elements(object.get(inputs, ["accessControlPolicy", "grants"], []))
	is_object(g)
	object.get(g, ["grantee", "uri"], "") in public_grantees
}

# a secret ACL (canned, its access control policy, grants, a grant, grantee or grantee URI) may
# grant AllUsers: no preview shows it
_public[class] contains problem(b, "bucket ACL is secret, so public access cannot be ruled out") if {
	some t in s3.acl_types
	some c in resources.indices(t)
	_acl_secret(input.document.resources[c].inputs)
	some i in s3.config_buckets(c)
	b := input.document.resources[i]
	class := resources.data_class(b)
}

_acl_secret(inputs) if "[secret]" in {
	object.get(inputs, "acl", "private"),
	object.get(inputs, "accessControlPolicy", {}),
	object.get(inputs, ["accessControlPolicy", "grants"], []),
}

_acl_secret(inputs) if {
	some g in resources.elements(object.get(inputs, ["accessControlPolicy", "grants"], []))
	_secret_grant(g, "grantee", ["grantee", "uri"])
}

_secret_grant(g, _, _) if g == "[secret]"

_secret_grant(g, grantee, uri) if {
	is_object(g)
	"[secret]" in {object.get(g, grantee, {}), object.get(g, uri, "")}
}

# a bucket's inline acl and grants (aws.s3.Bucket still accepts them)
_public[class] contains problem(b, "bucket ACL grants access to AllUsers or AuthenticatedUsers") if {
	some i in s3.bucket_indices
	b := input.document.resources[i]
	_inline_acl_public(b.inputs)
	class := resources.data_class(b)
}

_inline_acl_public(inputs) if object.get(inputs, "acl", "private") in public_canned

_inline_acl_public(inputs) if {
	some g in resources.elements(object.get(inputs, "grants", []))
	is_object(g)
	object.get(g, "uri", "") in public_grantees
}

_public[class] contains problem(b, "bucket ACL is secret, so public access cannot be ruled out") if {
	some i in s3.bucket_indices
	b := input.document.resources[i]
	_inline_acl_secret(b.inputs)
	class := resources.data_class(b)
}

_inline_acl_secret(inputs) if "[secret]" in {object.get(inputs, "acl", "private"), object.get(inputs, "grants", [])}

_inline_acl_secret(inputs) if {
	some g in resources.elements(object.get(inputs, "grants", []))
	_secret_grant(g, "uri", "uri")
}

_public[class] contains problem(b, resources.secret_document_message("bucket policy")) if {
	some i in _secret_policy_buckets
	b := input.document.resources[i]
	class := resources.data_class(b)
}

_public[class] contains problem(b, "bucket policy allows Principal \"*\" without an aws:SourceVpce or aws:PrincipalOrgID condition") if {
	some p, statements in s3.policy_documents(input.document)
	some st in statements
	resources.unconditioned_public_allow(st)
	some i in s3.config_buckets(p)
	b := input.document.resources[i]
	class := resources.data_class(b)
}
