# METADATA
# title: Public access helpers
# description: >-
#   Who may assume a role (its trust policy, assumeRolePolicy), whom a KMS key policy lets in,
#   which data stores the switch publiclyAccessible puts on the internet, and which load
#   balancers are internet-facing in front of personal data. "Anyone" is read as for bucket
#   policies (lib.resources.unconditioned_public_allow): Principal "*" (or {"AWS": "*"}, or
#   NotPrincipal) without a condition narrowing it to an account, the organisation or a VPC.
#   Rules refer to it by its full path (data.lib.public_access.X): through an import alias regorus
#   evaluated the whole package for an MLPS rule (6.5 s of the 10,000-resource benchmark).
# scope: package
package lib.public_access

import data.lib.checks
import data.lib.compute
import data.lib.findings
import data.lib.resources
import data.lib.routing

# ---------------------------------------------------------------- role trust policies

role_type := "aws:iam/role:Role"

# a role whose trust policy lets anyone assume it. Another account's root (or a role of it), a
# service principal and a web-identity provider with a narrowing condition are named principals.
open_trust contains findings.problem(r, msg) if {
	some r in resources.of_type(input.document, role_type)
	some st in resources.policy_statements(object.get(r.inputs, "assumeRolePolicy", "{}"))
	resources.unconditioned_public_allow(st)
	msg := "role trust policy (assumeRolePolicy) lets anyone assume the role: Principal \"*\" without a condition that narrows it to an account, organisation or VPC"
}

# a web-identity (OIDC) provider without a condition on who it vouches for: every identity of the
# provider may assume the role (for an EKS cluster's provider, every service account of the
# cluster; for a public provider, every account there)
open_trust contains findings.problem(r, msg) if {
	some r in resources.of_type(input.document, role_type)
	some st in resources.policy_statements(object.get(r.inputs, "assumeRolePolicy", "{}"))
	object.get(st, "Effect", "Allow") == "Allow"
	is_object(st.Principal)
	some provider in resources.as_list(object.get(st.Principal, "Federated", []))
	host := web_identity_host(provider)
	not _narrows_identity(st, host)
	msg := sprintf("role trust policy lets every identity of the web-identity provider %s assume the role: %s", [provider, _missing_condition(host)])
}

_missing_condition(host) := sprintf("no condition on %s:sub that names particular identities (%s:aud does not: whoever asks for a token chooses its audience)", [host, host]) if {
	_audience_chosen_by_requester(host)
} else := sprintf("no condition on %s:sub (or a specific %s:aud) that names particular identities", [host, host])

# a secret trust policy may let anyone in: judged as the worst it could hold, as a secret IAM
# policy document is (lib.checks.wildcard_admin); one unknown until apply is not judged (the roles
# Seedance creates build theirs from values the preview may not know yet)
open_trust contains findings.problem(r, "role trust policy (assumeRolePolicy) is secret, so a trust that lets anyone assume the role cannot be ruled out") if {
	some r in resources.of_type(input.document, role_type)
	object.get(r.inputs, "assumeRolePolicy", "") == "[secret]"
}

# the host a web-identity provider's condition keys start with: an IAM OIDC provider ARN
# (arn:aws:iam::ACCOUNT:oidc-provider/HOST) or a built-in provider's name. SAML providers are
# not web-identity providers (their SAML:aud is always the sign-in endpoint).
web_identity_host(provider) := lower(substring(provider, i + count(_oidc_marker), -1)) if {
	is_string(provider)
	i := indexof(provider, _oidc_marker)
	i >= 0
}

web_identity_host(provider) := lower(provider) if provider in _builtin_web_identity

_oidc_marker := ":oidc-provider/"

_builtin_web_identity := {"cognito-identity.amazonaws.com", "accounts.google.com", "graph.facebook.com", "www.amazon.com"}

# a condition that admits only some identities of the provider: on HOST:sub, with a positive
# operator and values that each name particular subjects (a condition's values are alternatives);
# or on HOST:aud with audiences none of which admits sts.amazonaws.com (the audience every EKS
# service-account token and every GitHub Actions token for AWS carries; a StringLike pattern such
# as sts.* admits it too), except where whoever asks for a token chooses its audience (an EKS
# cluster's service accounts, GitHub and GitLab jobs): there an audience names no one
_narrows_identity(st, host) if {
	some operator, clause in object.get(st, "Condition", {})
	_positive(operator)
	is_object(clause)
	some key, values in clause
	lower(key) == concat(":", [host, "sub"])
	_named_values(values)
	every v in resources.as_list(values) {
		_pins_subject(operator, host, v)
	}
}

_narrows_identity(st, host) if {
	not _audience_chosen_by_requester(host)
	some operator, clause in object.get(st, "Condition", {})
	_positive(operator)
	is_object(clause)
	some key, values in clause
	lower(key) == concat(":", [host, "aud"])
	_named_values(values)
	every v in resources.as_list(values) {
		not _generic_audience(operator, v)
	}
}

_generic_audience(_, v) if lower(v) == "sts.amazonaws.com"

_generic_audience(operator, v) if {
	endswith(lower(operator), "stringlike")
	glob.match(lower(v), null, "sts.amazonaws.com") # null: no delimiters, * matches dots too
}

_positive(operator) if lower(trim_prefix(operator, "ForAnyValue:")) in _positive_operators

# a subject value names particular identities: a literal one does; a StringLike pattern only where
# what it fixes before its first wildcard pins the owner, for providers whose subjects have one
# (EKS: system:serviceaccount:NAMESPACE:..., GitHub: repo:OWNER/... or repository_owner[_id]:OWNER:...,
# GitLab: project_path:GROUP/...), so that repo:* or system:serviceaccount:*:* name no one
_pins_subject(operator, _, v) if not _wildcard_pattern(operator, v)

_pins_subject(operator, host, v) if {
	_wildcard_pattern(operator, v)
	_pins(_subject_kind(host), regex.find_n(`^[^*?]*`, v, 1)[0])
}

_wildcard_pattern(operator, v) if {
	endswith(lower(operator), "stringlike")
	regex.match(`[*?]`, v)
}

_pins("eks", fixed) if regex.match(`^system:serviceaccount:[^:]+:`, fixed)

_pins("github", fixed) if regex.match(`^(repo:[^:/]+/|repository_owner(_id)?:[^:]+:)`, fixed)

_pins("gitlab", fixed) if regex.match(`^project_path:[^:/]+/`, fixed)

_pins("terraform", fixed) if regex.match(`^organization:[^:]+:`, fixed)

_pins("other", fixed) if fixed != ""

_subject_kind(host) := "eks" if {
	regex.match(`^oidc\.eks\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/id/`, host)
} else := "github" if {
	# GitHub Actions, an enterprise's own issuer under it, GitHub Enterprise Server's HOST/_services/token
	regex.match(`^token\.actions\.githubusercontent\.com(/.*)?$|/_services/token$`, host)
} else := "gitlab" if {
	# GitLab.com and the usual host of a self-managed instance
	regex.match(`^gitlab\.`, host)
} else := "terraform" if {
	host == "app.terraform.io"
} else := "other"

_audience_chosen_by_requester(host) if _subject_kind(host) in {"eks", "github", "gitlab", "terraform"}

_positive_operators := {"stringequals", "stringequalsignorecase", "stringlike"}

_named_values(values) if {
	names := resources.as_list(values)
	count(names) > 0
	every v in names {
		is_string(v)
		not regex.match(`^[*?]*$`, v) # "" or wildcards alone match anyone
		not contains(v, "${") # a policy variable matches whoever asks
	}
}

# ---------------------------------------------------------------- KMS key policies

# every resource that carries a key policy (as gdpr.key_management reads them)
key_policy_types := {
	"aws:kms/key:Key",
	"aws:kms/replicaKey:ReplicaKey",
	"aws:kms/replicaExternalKey:ReplicaExternalKey",
	"aws:kms/externalKey:ExternalKey",
	"aws:kms/keyPolicy:KeyPolicy",
}

public_key_policies contains findings.problem(k, "KMS key policy grants Principal \"*\" without a condition that narrows it to an account, organisation or VPC") if {
	some k in resources.of_types(input.document, key_policy_types)
	some statement in resources.policy_statements(object.get(k.inputs, "policy", "{}"))
	resources.unconditioned_public_allow(statement)
}

# a secret key policy may grant Principal "*" (no preview shows it)
public_key_policies contains findings.problem(k, resources.secret_document_message("KMS key policy")) if {
	some k in resources.of_types(input.document, key_policy_types)
	resources.secret_document(object.get(k.inputs, "policy", "{}"))
}

# ---------------------------------------------------------------- publicly accessible data stores

# data stores with a publiclyAccessible switch (true gives them a public endpoint and IP), by type
store_nouns := {
	"aws:rds/instance:Instance": "database instance",
	"aws:rds/clusterInstance:ClusterInstance": "database cluster instance",
	"aws:rds/cluster:Cluster": "Multi-AZ database cluster",
	"aws:neptune/clusterInstance:ClusterInstance": "Neptune instance",
	"aws:redshift/cluster:Cluster": "Redshift cluster",
	"aws:redshiftserverless/workgroup:Workgroup": "Redshift Serverless workgroup",
	"aws:dms/replicationInstance:ReplicationInstance": "DMS replication instance",
	"aws:mq/broker:Broker": "message broker",
}

# cluster instances hold their cluster's data: [the instance's type, its cluster's type]
_cluster_of := {
	"aws:rds/clusterInstance:ClusterInstance": "aws:rds/cluster:Cluster",
	"aws:neptune/clusterInstance:ClusterInstance": "aws:neptune/cluster:Cluster",
}

# position -> message, for every data store publiclyAccessible puts (or may put) on the internet
public_stores := {i: msg |
	some t, noun in store_nouns
	some i in resources.indices(t)
	msg := _public_store_message(noun, object.get(input.document.resources[i].inputs, "publiclyAccessible", false))
}

_public_store_message(noun, v) := sprintf("%s is publicly accessible (publiclyAccessible true): it gets a public endpoint", [noun]) if {
	resources.truthy(v)
}

_public_store_message(noun, v) := sprintf("%s may be publicly accessible: publiclyAccessible is %s", [noun, resources.hidden_why(v)]) if {
	resources.hidden(v)
}

# positions of data stores holding personal data: tagged personal, or a cluster instance of a
# personal-data cluster (its clusterIdentifier names one, or is unknown and untied while the
# document holds one)
personal_stores := {i |
	some i, _ in public_stores
	i in resources.personal_indices
} | {i |
	some i, _ in public_stores
	r := input.document.resources[i]
	cluster_type := _cluster_of[r.type]
	some c in resources.indices(cluster_type)
	c in resources.personal_indices
	_in_cluster(r, input.document.resources[c])
}

_in_cluster(r, c) if routing.refers(r, "clusterIdentifier", c)

_in_cluster(r, c) if object.get(r.inputs, "clusterIdentifier", null) == object.get(c.inputs, "clusterIdentifier", "")

_in_cluster(r, _) if routing.unlinked_unknown(r, "clusterIdentifier")

# ---------------------------------------------------------------- internet-facing load balancers

lb_types := {"aws:lb/loadBalancer:LoadBalancer", "aws:alb/loadBalancer:LoadBalancer", "aws:elb/loadBalancer:LoadBalancer"}

_listener_types := {"aws:lb/listener:Listener", "aws:alb/listener:Listener"}

_rule_types := {"aws:lb/listenerRule:ListenerRule", "aws:alb/listenerRule:ListenerRule"}

_target_group_types := {"aws:lb/targetGroup:TargetGroup", "aws:alb/targetGroup:TargetGroup"}

_attachment_types := {"aws:lb/targetGroupAttachment:TargetGroupAttachment", "aws:alb/targetGroupAttachment:TargetGroupAttachment"}

# position -> message, for every load balancer that is (or may be) internet-facing: internal is
# false by default
internet_lbs := {i: msg |
	some t in lb_types
	some i in resources.indices(t)
	# a gateway load balancer has no scheme: only its endpoints reach it, never the internet
	object.get(input.document.resources[i].inputs, "loadBalancerType", "application") != "gateway"
	msg := _internet_message(object.get(input.document.resources[i].inputs, "internal", false))
}

_internet_message(v) := "load balancer is internet-facing (internal not true)" if {
	not resources.truthy(v)
	not resources.hidden(v)
}

_internet_message(v) := sprintf("load balancer may be internet-facing: internal is %s", [resources.hidden_why(v)]) if resources.hidden(v)

# position -> why an internet-facing load balancer fronts personal data: its own data-class tag, a
# target group it forwards to (tagged personal, or with a personal-data autoscaling group or
# instance registered), or, for a classic load balancer, a personal-data instance or group
personal_lbs := {i: sort(whys)[0] |
	some i, _ in internet_lbs
	whys := {why | some [j, why] in _lb_reasons; j == i}
	count(whys) > 0
}

# position -> why a load balancer of personal_lbs is not shown to answer the internet on 443 only,
# the one port the control catalog admits world ingress on for an internet load balancer: a
# listener of the document on another port (or on one it does not show), a listener whose
# loadBalancerArn is unknown until apply (it may be this load balancer's), or no listener at all.
# An HTTP listener that only redirects to HTTPS carries no data and is not counted (the security
# group that admits the world on its port is judged on its own). A load balancer answers on its
# listeners' ports only, so no security group is read here.
open_ports := {i: sort(gaps) |
	some i, _ in personal_lbs
	gaps := _port_gaps(input.document.resources[i])
	count(gaps) > 0
}

_classic_type := "aws:elb/loadBalancer:LoadBalancer"

_port_gaps(lb) := {"the document holds no listener of it"} if {
	not _has_listener(lb)
} else := {gap |
	some [what, port] in _data_listeners(lb)
	gap := _port_gap(what, port)
} | _hidden_classic_listeners(lb)

_has_listener(lb) if {
	lb.type != _classic_type
	count(_listeners_of(lb)) > 0
}

_has_listener(lb) if {
	lb.type == _classic_type
	count(resources.elements(object.get(lb.inputs, "listeners", []))) > 0
}

_has_listener(lb) if {
	lb.type == _classic_type
	resources.hidden(object.get(lb.inputs, "listeners", []))
}

# the listeners of the document that may be the load balancer's (_may_listen)
_listeners_of(lb) := [l | some l in resources.of_types(input.document, _listener_types); _may_listen(l, lb)]

# a listener of the load balancer, or one whose loadBalancerArn the document does not show and whose
# dependencies do not tie it to another load balancer of the document (a dependency on anything else,
# such as a parameter holding the ARN, or none, ties it to no load balancer)
_may_listen(l, lb) if routing.refers(l, "loadBalancerArn", lb)

_may_listen(l, lb) if {
	resources.hidden(l.inputs.loadBalancerArn)
	not _tied_to_another_lb(l, lb)
}

_tied_to_another_lb(l, lb) if {
	some other in resources.of_types(input.document, lb_types)
	other.urn != lb.urn
	other.urn in object.get(l, ["property_dependencies", "loadBalancerArn"], [])
}

# [what, port] for every listener that may carry data to the load balancer
_data_listeners(lb) := {[what, object.get(l.inputs, "port", null)] |
	lb.type != _classic_type
	some l in _listeners_of(lb)
	not checks.redirects_to_https(l)
	what := _listener_what(l, lb)
} | {["a listener", object.get(l, "lbPort", null)] |
	lb.type == _classic_type
	some l in resources.elements(object.get(lb.inputs, "listeners", []))
	is_object(l)
}

_listener_what(l, lb) := sprintf("listener %s", [l.name]) if {
	routing.refers(l, "loadBalancerArn", lb)
} else := sprintf("listener %s (its loadBalancerArn is %s, so it may be this load balancer's)", [l.name, resources.hidden_why(l.inputs.loadBalancerArn)])

# undefined for port 443
_port_gap(what, port) := sprintf("%s: its port is %s", [what, resources.hidden_why(port)]) if {
	resources.hidden(port)
} else := sprintf("%s names no port", [what]) if {
	port == null
} else := sprintf("%s on port %v", [what, port]) if {
	sprintf("%v", [port]) != "443"
}

_hidden_classic_listeners(lb) := {sprintf("its listeners are %s", [resources.hidden_why(v)]) |
	lb.type == _classic_type
	listeners := object.get(lb.inputs, "listeners", [])
	some v in array.concat([listeners], resources.elements(listeners))
	resources.hidden(v)
}

_lb_reasons contains [i, "it is tagged data-class personal"] if {
	some i, _ in internet_lbs
	i in resources.personal_indices
}

_lb_reasons contains [i, sprintf("it forwards to target group %s, %s", [tg.name, why])] if {
	some i, _ in internet_lbs
	not i in resources.personal_indices
	lb := input.document.resources[i]
	some g, why in _personal_target_groups
	tg := input.document.resources[g]
	_forwards(lb, tg)
}

_lb_reasons contains [i, sprintf("personal-data %s is registered with it", [member])] if {
	some i, _ in internet_lbs
	not i in resources.personal_indices
	lb := input.document.resources[i]
	lb.type == "aws:elb/loadBalancer:LoadBalancer"
	some member in _classic_members(lb)
}

# target group position -> why it holds personal data (one reason each)
_personal_target_groups := {g: why |
	some g in _target_group_indices
	reasons := _target_group_reasons(input.document.resources[g])
	count(reasons) > 0
	why := sort(reasons)[0]
}

_target_group_indices := {g | some t in _target_group_types; some g in resources.indices(t)}

_target_group_reasons(tg) := {"tagged data-class personal" | tg.urn in _personal_urns} | {why |
	some a, suffix in _personal_groups
	asg := input.document.resources[a]
	some field in ["targetGroupArns", "trafficSources"]
	_registers(asg, field, tg)
	why := sprintf("where personal-data autoscaling group %s%s registers", [asg.name, suffix])
} | {why |
	some t in _attachment_types
	some c in resources.indices(t)
	att := input.document.resources[c]
	routing.refers(att, "targetGroupArn", tg)
	some n in resources.indices("aws:ec2/instance:Instance")
	n in resources.personal_indices
	inst := input.document.resources[n]
	routing.refers(att, "targetId", inst)
	why := sprintf("where personal-data instance %s is registered", [inst.name])
} | {why |
	some c in resources.indices(_group_attachment_type)
	att := input.document.resources[c]
	routing.refers(att, "lbTargetGroupArn", tg)
	some a, suffix in _personal_groups
	asg := input.document.resources[a]
	routing.refers(att, "autoscalingGroupName", asg)
	why := sprintf("where personal-data autoscaling group %s%s registers", [asg.name, suffix])
} | {why |
	some c in resources.indices(_traffic_attachment_type)
	att := input.document.resources[c]
	_attaches_source(att, tg)
	some a, suffix in _personal_groups
	asg := input.document.resources[a]
	routing.refers(att, "autoscalingGroupName", asg)
	why := sprintf("where personal-data autoscaling group %s%s registers", [asg.name, suffix])
}

_group_type := "aws:autoscaling/group:Group"

_group_attachment_type := "aws:autoscaling/attachment:Attachment"

_traffic_attachment_type := "aws:autoscaling/trafficSourceAttachment:TrafficSourceAttachment"

# autoscaling group position -> what a message adds to its name, for the groups whose instances
# hold personal data: tagged personal themselves (nothing added), or launching from a launch
# template or configuration of the document whose instances hold personal data (its own tag, or
# the instance tags of its tagSpecifications: lib.compute.launches_personal)
_personal_groups := {a: suffix |
	some a in resources.indices(_group_type)
	suffix := _group_suffix(a)
}

_group_suffix(a) := "" if {
	a in resources.personal_indices
} else := sprintf(" (it launches from personal-data %s)", [sort(sources)[0]]) if {
	sources := {sprintf("%s %s", [compute.noun(s), s.name]) |
		some s in compute.launch_sources_of(input.document.resources[a])
		compute.launches_personal(s)
	}
	count(sources) > 0
}

_personal_urns := {input.document.resources[g].urn | some g in _target_group_indices; g in resources.personal_indices}

# a list input (targetGroupArns, loadBalancers, trafficSources) names t: an element's value (a
# traffic source's identifier), or the input's dependencies
_registers(r, field, t) if t.urn in object.get(r, ["property_dependencies", field], [])

_registers(r, field, t) if {
	some v in resources.elements(object.get(r.inputs, field, []))
	routing.names(_identifier(v), t)
}

_identifier(v) := object.get(v, "identifier", null) if is_object(v) else := v

# a TrafficSourceAttachment's trafficSource names t: its identifier, or its dependencies
_attaches_source(att, t) if t.urn in object.get(att, ["property_dependencies", "trafficSource"], [])

_attaches_source(att, t) if routing.names(object.get(att.inputs, ["trafficSource", "identifier"], null), t)

# a listener of the load balancer, or a rule of such a listener, forwards to the target group
_forwards(lb, tg) if {
	some l in resources.of_types(input.document, _listener_types)
	routing.refers(l, "loadBalancerArn", lb)
	_action_names(l, "defaultActions", tg)
}

_forwards(lb, tg) if {
	some l in resources.of_types(input.document, _listener_types)
	routing.refers(l, "loadBalancerArn", lb)
	some rule in resources.of_types(input.document, _rule_types)
	routing.refers(rule, "listenerArn", l)
	_action_names(rule, "actions", tg)
}

# an action names a target group: targetGroupArn, or forward.targetGroups[].arn, or the field's
# recorded dependencies
_action_names(r, field, tg) if tg.urn in object.get(r, ["property_dependencies", field], [])

_action_names(r, field, tg) if {
	some action in resources.elements(object.get(r.inputs, field, []))
	is_object(action)
	some arn in _action_arns(action)
	routing.names(arn, tg)
}

_action_arns(action) := {object.get(action, "targetGroupArn", "")} | {g.arn |
	some g in resources.elements(object.get(action, ["forward", "targetGroups"], []))
	is_object(g)
}

# what a message calls the personal-data instances and autoscaling groups registered with a classic
# load balancer: instances it lists (instances) or an elb Attachment attaches, groups that name it
# (loadBalancers, trafficSources) or an autoscaling Attachment (elb) or TrafficSourceAttachment
# attaches
_classic_members(lb) := {r.name |
	some r in _personal_instances
	some v in resources.elements(object.get(lb.inputs, "instances", []))
	routing.names(v, r)
} | {r.name |
	some c in resources.indices("aws:elb/attachment:Attachment")
	att := input.document.resources[c]
	routing.refers(att, "elb", lb)
	some r in _personal_instances
	routing.refers(att, "instance", r)
} | {concat("", [r.name, suffix]) |
	some a, suffix in _personal_groups
	r := input.document.resources[a]
	some field in ["loadBalancers", "trafficSources"]
	_registers(r, field, lb)
} | {concat("", [r.name, suffix]) |
	some c in resources.indices(_group_attachment_type)
	att := input.document.resources[c]
	routing.refers(att, "elb", lb)
	some a, suffix in _personal_groups
	r := input.document.resources[a]
	routing.refers(att, "autoscalingGroupName", r)
} | {concat("", [r.name, suffix]) |
	some c in resources.indices(_traffic_attachment_type)
	att := input.document.resources[c]
	_attaches_source(att, lb)
	some a, suffix in _personal_groups
	r := input.document.resources[a]
	routing.refers(att, "autoscalingGroupName", r)
}

_personal_instances := [input.document.resources[n] |
	some n in resources.indices("aws:ec2/instance:Instance")
	n in resources.personal_indices
]

# ---------------------------------------------------------------- listener ports open to the internet

# [resource to report, load balancer position, what a message calls the listener, its port] for
# every listener that may be one of an internet-facing load balancer: ALB and NLB listeners (the
# listener; one whose loadBalancerArn is not shown may be the load balancer's, as for open_ports)
# and classic listeners (the load balancer; listeners it does not show give their hidden value as
# the port). A load balancer answers the internet on these ports whatever the data behind it.
internet_listeners := {[l, i, what, object.get(l.inputs, "port", null)] |
	some i, _ in internet_lbs
	lb := input.document.resources[i]
	lb.type != _classic_type
	some l in _listeners_of(lb)
	what := _internet_listener_what(l, lb)
} | {[lb, i, "classic load balancer listener", port] |
	some i, _ in internet_lbs
	lb := input.document.resources[i]
	lb.type == _classic_type
	listeners := object.get(lb.inputs, "listeners", [])
	some x in array.concat([listeners], resources.elements(listeners))
	port := _classic_port(x)
}

_classic_port(x) := object.get(x, "lbPort", null) if is_object(x) else := x if resources.hidden(x)

_internet_listener_what(l, lb) := sprintf("listener of %s", [_lb_phrase(lb)]) if {
	routing.refers(l, "loadBalancerArn", lb)
} else := sprintf("listener (its loadBalancerArn is %s, so it may be one of %s)", [resources.hidden_why(l.inputs.loadBalancerArn), _lb_phrase(lb)])

_lb_phrase(lb) := sprintf("load balancer %s (internal is %s, so it may be internet-facing)", [lb.name, resources.hidden_why(lb.inputs.internal)]) if {
	resources.hidden(object.get(lb.inputs, "internal", false))
} else := sprintf("internet-facing load balancer %s", [lb.name])

# position of an internet-facing load balancer -> why the world may reach every one of its listener
# ports: a network load balancer without security groups (its listeners answer anyone), or security
# groups the document does not show or hold (their rules cannot be read). The rules of security
# groups of the document are judged on their own (a world-open rule on a port other than 80/443 is
# reported there); an ALB or classic load balancer without security groups gets the VPC's default
# security group, which admits no one from outside unless the document gives it rules.
unshielded_lbs := {i: why |
	some i, _ in internet_lbs
	why := _unshielded(input.document.resources[i])
}

_unshielded(lb) := sprintf("its security groups are %s", [resources.hidden_why(groups)]) if {
	groups := object.get(lb.inputs, "securityGroups", [])
	resources.hidden(groups)
} else := sprintf("a security group of it is %s and tied to none of the document's (its rules cannot be read)", [resources.hidden_why(g)]) if {
	some g in resources.elements(object.get(lb.inputs, "securityGroups", []))
	resources.hidden(g)
	not _group_of_document(lb, g)
} else := sprintf("its security group %v is not in the document (its rules cannot be read)", [g]) if {
	some g in resources.elements(object.get(lb.inputs, "securityGroups", []))
	not _group_of_document(lb, g)
} else := "it is a network load balancer without security groups: its listeners answer anyone" if {
	lb.type != _classic_type
	lower(sprintf("%v", [object.get(lb.inputs, "loadBalancerType", "application")])) in {"network", "[unknown]", "[secret]"}
	count(resources.elements(object.get(lb.inputs, "securityGroups", []))) == 0
}

_security_group_types := {"aws:ec2/securityGroup:SecurityGroup", "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"}

# a security group reference names a group of the document (by value), or is not shown and the
# input's dependencies name one
_group_of_document(_, g) if {
	some sg in resources.of_types(input.document, _security_group_types)
	routing.names(g, sg)
}

_group_of_document(lb, g) if {
	resources.hidden(g)
	some sg in resources.of_types(input.document, _security_group_types)
	sg.urn in object.get(lb, ["property_dependencies", "securityGroups"], [])
}

# "WHAT exposes KIND port P to the internet" for a listener port among ports; for a port the document
# does not show, that it may
exposed_port_message(what, port, ports, kind) := sprintf("%s exposes %s port %d to the internet", [what, kind, p]) if {
	p := resources.number(port)
	p in ports
} else := sprintf("%s: its port is %s, so it may expose a %s port to the internet", [what, resources.hidden_why(port), kind]) if {
	resources.hidden(port)
}
