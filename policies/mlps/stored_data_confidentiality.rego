package mlps.stored_data_confidentiality

import data.lib.checks
import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.pods
import data.lib.resources

# METADATA
# title: "Encrypt stored sensitive data"
# description: >-
#   As GDPR-32.1a-1 (SSE-KMS buckets, encrypted EBS, encrypted EBS StorageClasses, personal- and
#   internal-data volume claims on a StorageClass of the document whose encryption is judged,
#   KMS-encrypted log groups, encrypted RDS, DocumentDB, Neptune and EFS storage and imported EBS
#   snapshots; personal or internal data in a type no rule checks is reported), plus no plaintext
#   credentials in ConfigMaps, container env (pods, ECS task definitions), Lambda environment
#   variables or launch-template user data, and EKS clusters encrypt Secrets with KMS.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.8b
#   clause: "8.1.4.8 b)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Encrypt the storage (for a type no rule checks, then waive the finding with the evidence;
#     for a volume claim, name an encrypted StorageClass of the stack in storageClassName);
#     move credentials to Secrets / Secrets Manager (ECS: secrets with valueFrom; Lambda: read the
#     secret at run time, naming its ARN); add encryptionConfig for
#     secrets to the EKS cluster.
violation contains findings.finding("MLPS-L3-8.1.4.8b", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains p if {
	some p in checks.at_rest(input.document)
}

_problems contains p if {
	some p in checks.unchecked_sensitive_stores
}

# volume claims whose volumes are not shown to come from an encrypted StorageClass of the document
_problems contains p if {
	some p in checks.unencrypted_claims(input.document, {"personal", "internal"})
}

# a group, instance or fleet of personal or internal data that launches from a template the
# document does not hold: its volumes' encryption cannot be checked
_problems contains compute.unseen_launch_problem(i, ref, "the encryption of its volumes") if {
	some [i, ref] in compute.unseen_launch_sources
	i in resources.sensitive_indices
}

_problems contains findings.problem(cm, msg) if {
	some ref in resources.credential_config_keys(input.document)
	cm := input.document.resources[ref[0]]
	msg := sprintf("ConfigMap key %q looks like a plaintext credential", [ref[1]])
}

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	some spec in resources.pod_specs(w)
	some c in resources.containers(spec)
	env := object.get(c, "env", [])
	is_array(env)
	some e in env
	is_object(e)
	resources.credential_key(object.get(e, "name", ""))
	is_string(object.get(e, "value", null))
	msg := sprintf("container %s sets credential %s as a plaintext env value", [pods.name(c), e.name])
}

# an env list, or the name of a plaintext env value, unknown until apply may hold a credential
_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	some spec in resources.pod_specs(w)
	some c in resources.containers(spec)
	some what in _unknown_env(c)
	msg := sprintf("container %s: %s unknown until apply, so a plaintext credential cannot be ruled out", [pods.name(c), what])
}

_unknown_env(c) := {"its env list" | resources.hidden(object.get(c, "env", []))} | {"the name of a plaintext env value" |
	env := object.get(c, "env", [])
	is_array(env)
	some e in env
	is_object(e)
	resources.hidden(object.get(e, "name", ""))
	is_string(object.get(e, "value", null))
}

# Lambda functions: environment.variables, a map of names to literal values (pulumi-aws and
# aws-native alike); a value that is the ARN of a Secrets Manager secret or an SSM parameter names
# where the credential is kept, not the credential
_lambda_types := ["aws:lambda/function:Function", "aws-native:lambda:Function"]

_problems contains findings.problem(f, msg) if {
	some f in resources.of_types(input.document, _lambda_types)
	variables := object.get(f.inputs, ["environment", "variables"], {})
	is_object(variables)
	some name, value in variables
	resources.credential_key(name)
	_plaintext(value)
	msg := sprintf("function sets credential %s as a plaintext environment variable (environment.variables); expected a Secrets Manager or SSM reference read at run time", [name])
}

# environment variables, or the whole environment, the document does not show (unknown until apply,
# or secret): they may hold a plaintext credential
_problems contains findings.problem(f, msg) if {
	some f in resources.of_types(input.document, _lambda_types)
	some v in [object.get(f.inputs, "environment", {}), object.get(f.inputs, ["environment", "variables"], {})]
	resources.hidden(v)
	msg := sprintf("function's environment variables are %s, so a plaintext credential cannot be ruled out", [resources.hidden_why(v)])
}

# ECS task definitions: each container's environment list ({name, value})
_task_types := ["aws:ecs/taskDefinition:TaskDefinition", "aws-native:ecs:TaskDefinition"]

_problems contains findings.problem(td, msg) if {
	some td in resources.of_types(input.document, _task_types)
	some c in resources.container_definitions(object.get(td.inputs, "containerDefinitions", []))
	env := object.get(c, "environment", [])
	is_array(env)
	some e in env
	is_object(e)
	resources.credential_key(object.get(e, "name", ""))
	_plaintext(object.get(e, "value", null))
	msg := sprintf("container %v sets credential %s as a plaintext env value (environment); expected secrets with valueFrom", [object.get(c, "name", "?"), e.name])
}

_problems contains findings.problem(td, "task definition's containerDefinitions are unknown until apply, so a plaintext credential cannot be ruled out") if {
	some td in resources.of_types(input.document, _task_types)
	not _readable_containers(object.get(td.inputs, "containerDefinitions", []))
}

_readable_containers(raw) if resources.container_definitions(raw)

_plaintext(value) if {
	is_string(value)
	not regex.match(`^arn:aws[a-z-]*:(secretsmanager|ssm):`, value)
}

_problems contains findings.problem(lt, msg) if {
	some i in compute.indices
	lt := input.document.resources[i]
	some text in compute.user_data(lt)
	regex.match(`(?i)(password|secret|token|aws_secret_access_key)\s*[=:]\s*\S+`, text)
	msg := sprintf("%s user data contains a credential-like assignment", [compute.noun(lt)])
}

_problems contains findings.problem(c, "EKS cluster does not encrypt Secrets with KMS (encryptionConfig)") if {
	some c in resources.of_type(input.document, "aws:eks/cluster:Cluster")
	not _secrets_encrypted(c)
}

_secrets_encrypted(c) if "secrets" in object.get(c.inputs, ["encryptionConfig", "resources"], [])

# a workload whose pod spec, or part of the way to its containers, is unknown until apply
_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	resources.unknown_pod_spec(w)
	msg := sprintf("pod spec %s: whether its containers set credentials as plaintext env values cannot be checked", [resources.pod_spec_why(w)])
}
