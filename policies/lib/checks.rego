# METADATA
# title: Checks shared by several controls
# description: >-
#   Problems that more than one framework asks about (encryption at rest and in transit,
#   backups, IAM wildcards). Each function returns a set of {resource, message}; the controls
#   turn them into findings with lib.findings.finding.
# scope: package
package lib.checks

import data.lib.resources
import data.lib.s3

ebs_csi := {"ebs.csi.aws.com", "kubernetes.io/aws-ebs"}

storage_class := "kubernetes:storage.k8s.io/v1:StorageClass"

launch_template := "aws:ec2/launchTemplate:LaunchTemplate"

log_group := "aws:cloudwatch/logGroup:LogGroup"

problem(resource, message) := {"resource": resource, "message": message}

# ---------------------------------------------------------------- encryption at rest

at_rest(document) := ((_bucket_sse(document) | _lt_ebs(document)) | (_volumes(document) | _ebs_storage_classes(document))) | _log_groups(document)

_bucket_sse(document) := {problem(b, "bucket has no default encryption with aws:kms (SSE-KMS)") |
	some b in s3.buckets(document)
	not s3.kms_encrypted(document, b)
}

_lt_ebs(document) := {problem(lt, msg) |
	some lt in resources.of_type(document, launch_template)
	some m in object.get(lt.inputs, "blockDeviceMappings", [])
	is_object(object.get(m, "ebs", null))
	not resources.truthy(object.get(m.ebs, "encrypted", false))
	msg := sprintf("EBS mapping %v is not encrypted", [object.get(m, "deviceName", "?")])
}

_volumes(document) := {problem(v, "EBS volume is not encrypted") |
	some v in resources.of_type(document, "aws:ebs/volume:Volume")
	not resources.truthy(object.get(v.inputs, "encrypted", false))
}

# the EBS CSI driver leaves volumes unencrypted unless parameters.encrypted is "true"
_ebs_storage_classes(document) := {problem(sc, "EBS StorageClass does not set parameters.encrypted \"true\"") |
	some sc in resources.of_type(document, storage_class)
	sc.inputs.provisioner in ebs_csi
	not resources.truthy(object.get(sc.inputs, ["parameters", "encrypted"], false))
}

_log_groups(document) := {problem(lg, "log group is not encrypted with a KMS key (kmsKeyId)") |
	some lg in resources.of_type(document, log_group)
	object.get(lg.inputs, "kmsKeyId", "") == ""
}

# ---------------------------------------------------------------- encryption in transit

old_tls_policies := {
	"ELBSecurityPolicy-2016-08",
	"ELBSecurityPolicy-TLS-1-0-2015-04",
	"ELBSecurityPolicy-TLS-1-1-2017-01",
	"ELBSecurityPolicy-2015-05",
	"ELBSecurityPolicy-FS-2018-06",
	"ELBSecurityPolicy-FS-1-1-2019-08",
}

in_transit(document) := (_bucket_tls(document) | _listeners(document)) | _ingress_tls(document)

_bucket_tls(document) := {problem(b, "bucket policy does not deny requests without TLS (aws:SecureTransport false)") |
	some b in s3.buckets(document)
	not _denies_plaintext(document, b)
}

_denies_plaintext(document, b) if {
	some st in s3.policy_statements(document, b)
	s3.denies_insecure_transport(st)
}

_listeners(document) := {problem(l, msg) |
	some l in resources.of_type(document, "aws:lb/listener:Listener")
	protocol := upper(object.get(l.inputs, "protocol", "HTTP"))
	not protocol in {"HTTPS", "TLS"}
	msg := sprintf("load balancer listener uses %s, not HTTPS/TLS", [protocol])
} | {problem(l, msg) |
	some l in resources.of_type(document, "aws:lb/listener:Listener")
	policy := object.get(l.inputs, "sslPolicy", "")
	policy in old_tls_policies
	msg := sprintf("listener TLS policy %s allows TLS below 1.2", [policy])
}

_ingress_tls(document) := {problem(i, "Ingress has no tls section") |
	some i in resources.of_type(document, "kubernetes:networking.k8s.io/v1:Ingress")
	count(object.get(i.inputs, ["spec", "tls"], [])) == 0
}

# ---------------------------------------------------------------- backups (versioning)

unversioned_buckets(document, classes) := {problem(b, msg) |
	some b in s3.buckets(document)
	resources.data_class(b) in classes
	not s3.versioned(document, b)
	msg := sprintf("%s-data bucket is not versioned (no recovery from overwrite or deletion)", [resources.data_class(b)])
}

db_backups(document) := {problem(db, msg) |
	some db in resources.of_types(document, {"aws:rds/instance:Instance", "aws:rds/cluster:Cluster"})
	days := object.get(db.inputs, "backupRetentionPeriod", 1)
	days < 7
	msg := sprintf("database keeps backups %v days (at least 7 required)", [days])
}

# ---------------------------------------------------------------- IAM

iam_documents(document) := [[r, d] |
	some r in resources.of_types(document, {"aws:iam/policy:Policy", "aws:iam/rolePolicy:RolePolicy", "aws:iam/userPolicy:UserPolicy", "aws:iam/groupPolicy:GroupPolicy"})
	d := r.inputs.policy
]

iam_statements(document) := [[r, st] |
	some pair in array.concat(iam_documents(document), _inline_role_policies(document))
	r := pair[0]
	some st in resources.policy_statements(pair[1])
	object.get(st, "Effect", "Allow") == "Allow"
]

_inline_role_policies(document) := [[r, p.policy] |
	some r in resources.of_type(document, "aws:iam/role:Role")
	some p in object.get(r.inputs, "inlinePolicies", [])
]

wildcard_admin(document) := {problem(r, "IAM policy allows Action \"*\" on Resource \"*\"") |
	some pair in iam_statements(document)
	r := pair[0]
	st := pair[1]
	some a in resources.as_list(object.get(st, "Action", []))
	a in {"*", "*:*"}
	some res in resources.as_list(object.get(st, "Resource", []))
	res == "*"
}

wildcard_passrole(document) := {problem(r, "IAM policy allows iam:PassRole on any role (Resource \"*\")") |
	some pair in iam_statements(document)
	r := pair[0]
	st := pair[1]
	some a in resources.as_list(object.get(st, "Action", []))
	lower(a) in {"iam:passrole", "iam:*"}
	some res in resources.as_list(object.get(st, "Resource", []))
	res == "*"
}

imdsv1(document) := {problem(lt, msg) |
	some lt in resources.of_type(document, launch_template)
	tokens := object.get(lt.inputs, ["metadataOptions", "httpTokens"], "optional")
	tokens != "required"
	msg := sprintf("launch template allows IMDSv1 (metadataOptions.httpTokens is %q, not \"required\")", [tokens])
}

# ---------------------------------------------------------------- public buckets

public_buckets(document, classes) := (_no_pab(document, classes) | _pab_off(document, classes)) | (_public_acl(document, classes) | _public_policy(document, classes))

pab_flags := ["blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"]

_no_pab(document, classes) := {problem(b, "bucket has no public access block") |
	some b in s3.buckets(document)
	resources.data_class(b) in classes
	not s3.has_public_access_block(document, b)
}

_pab_off(document, classes) := {problem(b, msg) |
	some b in s3.buckets(document)
	resources.data_class(b) in classes
	some block in s3.public_access_blocks(document, b)
	some flag in pab_flags
	not resources.truthy(object.get(block.inputs, flag, false))
	msg := sprintf("public access block leaves %s off", [flag])
}

public_grantees := {"http://acs.amazonaws.com/groups/global/AllUsers", "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"}

public_canned := {"public-read", "public-read-write", "authenticated-read"}

_public_acl(document, classes) := {problem(b, msg) |
	some b in s3.buckets(document)
	resources.data_class(b) in classes
	some a in s3.acls(document, b)
	_acl_public(a.inputs)
	msg := "bucket ACL grants access to AllUsers or AuthenticatedUsers"
}

_acl_public(inputs) if object.get(inputs, "acl", "private") in public_canned

_acl_public(inputs) if {
	some g in object.get(inputs, ["accessControlPolicy", "grants"], [])
	object.get(g, ["grantee", "uri"], "") in public_grantees
}

_public_policy(document, classes) := {problem(b, "bucket policy allows Principal \"*\" without an aws:SourceVpce or aws:PrincipalOrgID condition") |
	some b in s3.buckets(document)
	resources.data_class(b) in classes
	some st in s3.policy_statements(document, b)
	resources.unconditioned_public_allow(st)
}
