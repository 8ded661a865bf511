package mlps.personal_information

import data.lib.checks
import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.routing

# METADATA
# title: "Personal information protection"
# description: >-
#   Personal-information resources are labelled with purpose and controller, and personal-data
#   buckets are fully private: a public access block with all flags on and no unconditioned
#   public grant or policy. Personal-data queues, topics and search domains grant no unconditioned
#   public access either, and a personal-data function has no function URL without authentication.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.11
#   clause: "8.1.4.11"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Tag personal-data resources with purpose and controller; block public access on
#     personal-data buckets and restrict access to named roles or aws:SourceVpce, on queue, topic
#     and domain policies too; give a personal-data function's URL authorizationType AWS_IAM.
violation contains findings.finding("MLPS-L3-8.1.4.11", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

# AWS resources are personal by their data-class tag, so each of them has tags
_problems contains findings.problem(input.document.resources[i], _lacks(tags)) if {
	some i, tags in resources.tags_at
	i in resources.personal_indices
	not _complete(tags)
}

# aws-native resources: their own tags (their provider's default tags are not read)
_problems contains findings.problem(input.document.resources[i], _lacks(tags)) if {
	some i, tags in resources.native_tags_at
	i in resources.personal_indices
	not _complete(tags)
}

_lacks(tags) := sprintf("personal-information resource lacks tag(s): %s%s", [concat(", ", missing), _secret_note(tags)]) if {
	missing := [k | some k in ["purpose", "controller"]; object.get(tags, k, "") in {"", "[secret]"}]
}

# a secret tag value cannot be shown to be set
_secret_note(tags) := sprintf(" (secret: %s)", [concat(", ", secret)]) if {
	secret := [k | some k in ["purpose", "controller"]; object.get(tags, k, "") == "[secret]"]
	count(secret) > 0
} else := ""

_complete(tags) if {
	not object.get(tags, "purpose", "") in {"", "[secret]"}
	not object.get(tags, "controller", "") in {"", "[secret]"}
}

_problems contains p if {
	some p in checks.public_buckets(input.document, {"personal"})
}

# personal-data queues, topics and search domains whose own resource policy lets anyone in
_inline_policies := {
	"aws:sqs/queue:Queue": ["policy", "queue policy"],
	"aws:sns/topic:Topic": ["policy", "topic policy"],
	"aws:opensearch/domain:Domain": ["accessPolicies", "domain access policy"],
	"aws:elasticsearch/domain:Domain": ["accessPolicies", "domain access policy"],
}

_problems contains findings.problem(r, _public_message(noun)) if {
	some t, [field, noun] in _inline_policies
	some i in resources.indices(t)
	i in resources.personal_indices
	r := input.document.resources[i]
	some st in resources.policy_statements(object.get(r.inputs, field, ""))
	resources.unconditioned_public_allow(st)
}

# a policy resource of a personal-data queue or topic: [the field that ties it, the store's type, noun]
_attached_policies := {
	"aws:sqs/queuePolicy:QueuePolicy": ["queueUrl", "aws:sqs/queue:Queue", "queue policy of a personal-data queue"],
	"aws:sns/topicPolicy:TopicPolicy": ["arn", "aws:sns/topic:Topic", "topic policy of a personal-data topic"],
}

_problems contains findings.problem(qp, _public_message(noun)) if {
	some t, [field, store, noun] in _attached_policies
	some c in resources.indices(t)
	qp := input.document.resources[c]
	some st in resources.policy_statements(object.get(qp.inputs, "policy", ""))
	resources.unconditioned_public_allow(st)
	some i in resources.indices(store)
	i in resources.personal_indices
	routing.refers(qp, field, input.document.resources[i])
}

# a secret queue, topic or domain policy: judged as possibly admitting anyone (no preview shows it)
_problems contains findings.problem(r, resources.secret_document_message(noun)) if {
	some t, [field, noun] in _inline_policies
	some i in resources.indices(t)
	i in resources.personal_indices
	r := input.document.resources[i]
	resources.secret_document(object.get(r.inputs, field, ""))
}

_problems contains findings.problem(qp, resources.secret_document_message(noun)) if {
	some t, [field, store, noun] in _attached_policies
	some c in resources.indices(t)
	qp := input.document.resources[c]
	resources.secret_document(object.get(qp.inputs, "policy", ""))
	some i in resources.indices(store)
	i in resources.personal_indices
	routing.refers(qp, field, input.document.resources[i])
}

_public_message(noun) := sprintf("%s allows Principal \"*\" without an aws:SourceVpce or aws:PrincipalOrgID condition", [noun])

# a function URL without authentication on a personal-data function (tied by its functionName)
_problems contains findings.problem(url, msg) if {
	some c in resources.indices("aws:lambda/functionUrl:FunctionUrl")
	url := input.document.resources[c]
	upper(sprintf("%v", [object.get(url.inputs, "authorizationType", "")])) == "NONE"
	some i in resources.indices("aws:lambda/function:Function")
	i in resources.personal_indices
	fn := input.document.resources[i]
	routing.refers(url, "functionName", fn)
	msg := sprintf("function URL of personal-data function %s has authorizationType NONE: anyone may invoke it", [fn.name])
}

# an authorizationType the document does not show may be NONE
_problems contains findings.problem(url, msg) if {
	some c in resources.indices("aws:lambda/functionUrl:FunctionUrl")
	url := input.document.resources[c]
	v := object.get(url.inputs, "authorizationType", "")
	resources.hidden(v)
	some i in resources.indices("aws:lambda/function:Function")
	i in resources.personal_indices
	fn := input.document.resources[i]
	routing.refers(url, "functionName", fn)
	msg := sprintf("function URL of personal-data function %s has an authorizationType that is %s, so authentication cannot be established", [fn.name, resources.hidden_why(v)])
}
