# METADATA
# title: Encryption-in-transit helpers
# description: >-
#   The listeners the stack's load balancers get and the TLS settings they carry, for the
#   encryption-in-transit checks of lib.checks: classic load balancers and the SSL negotiation
#   policies the document attaches to their listeners; Kubernetes Services of type LoadBalancer and
#   Ingresses (every API version, and their server-side patches) as the AWS Load Balancer
#   Controller or the legacy AWS cloud provider turn their annotations into listeners.
# scope: package
package lib.transit

import data.lib.resources

_unknown := "[unknown]"

# ---------------------------------------------------------------- classic load balancers

# pulumi-aws's classic load balancer types; the aws:elasticloadbalancing/ tokens are those of the
# deprecated aws.elasticloadbalancing module of pulumi-aws 5 and earlier, which pulumi-aws 7 still
# lists as aliases of the aws:elb/ types (a document of a program on an older SDK carries them)
classic_lb_types := {"aws:elb/loadBalancer:LoadBalancer", "aws:elasticloadbalancing/loadBalancer:LoadBalancer"}

# aws.elb.SslNegotiationPolicy: creates an SSL negotiation policy from `attributes` and sets it on
# the listener of `loadBalancer` (the load balancer's name, which is its id) on `lbPort`
ssl_negotiation_policy_types := {
	"aws:elb/sslNegotiationPolicy:SslNegotiationPolicy",
	"aws:elasticloadbalancing/sslNegotiationPolicy:SslNegotiationPolicy",
}

# aws.elb.LoadBalancerPolicy (`policyTypeName` SSLNegotiationPolicyType, `policyAttributes`, on the
# load balancer `loadBalancerName`) and aws.elb.ListenerPolicy, which sets the policies
# `policyNames` on the listener of `loadBalancerName` on `loadBalancerPort`
load_balancer_policy_types := {
	"aws:elb/loadBalancerPolicy:LoadBalancerPolicy",
	"aws:elasticloadbalancing/loadBalancerPolicy:LoadBalancerPolicy",
}

listener_policy_types := {
	"aws:elb/listenerPolicy:ListenerPolicy",
	"aws:elasticloadbalancing/listenerPolicy:ListenerPolicy",
}

# positions of the classic load balancers
classic_lb_indices := {i | some t in classic_lb_types; some i in resources.indices(t)}

# classic load balancers by the values that name them: recorded id, URN, logical name (which a mock
# id or a Pulumi auto-name carries) and explicit name (built once; a partial rule with no entries
# is undefined in regorus, so the indexes read by object.get are comprehensions over them)
_elb_by_key := {k: positions | some k, positions in _elbs_by_key}

_elbs_by_key[k] contains i if {
	some i in classic_lb_indices
	r := input.document.resources[i]
	some k in (resources.reference_keys(r) | _explicit_name(r))
}

_explicit_name(r) := {n} if {
	n := r.inputs.name
	is_string(n)
} else := set()

# positions of the classic load balancers that the input `field` of resource r names: through its
# property dependencies (URNs), or by value. A value unknown until apply without property
# dependencies names none: the listener then counts as having no policy (fail closed).
elbs_named(r, field) := _elbs_by_dependency(r, field) | _elbs_by_value(object.get(r.inputs, field, null))

_elbs_by_dependency(r, field) := {i |
	some urn in object.get(r, ["property_dependencies", field], [])
	some i in object.get(_elb_by_key, urn, set())
}

_elbs_by_value(v) := {i |
	some k in {v, resources.mock_name(v), _autoname_stem(v)}
	some i in object.get(_elb_by_key, k, set())
} if {
	is_string(v)
	resources.shown(v)
} else := set()

# NAME for a Pulumi auto-name, NAME-1234abc (a dash and 7 hex digits), else the value itself
_autoname_stem(v) := substring(v, 0, count(v) - 8) if {
	count(v) > 8
	trim_right(substring(v, count(v) - 8, 8), "0123456789abcdef") == "-"
} else := v

# the key of a classic load balancer's listener: the load balancer's position and the port
listener_key(lb, port) := sprintf("%v:%v", [lb, _port(port)])

_port(p) := n if {
	n := resources.number(p)
} else := p

# listener key -> the SSL negotiation policies the document sets on that listener, each as
# {"name", "attributes": [{name, value}]}; a name the listener is given that the document does not
# declare as an SSL negotiation policy of its load balancer is {"name", "undeclared": true}
listener_policies := {key: policies | some key, policies in _listener_policies}

_listener_policies[key] contains p if {
	some t in ssl_negotiation_policy_types
	some i in resources.indices(t)
	r := input.document.resources[i]
	some lb in elbs_named(r, "loadBalancer")
	key := listener_key(lb, object.get(r.inputs, "lbPort", _unknown))
	p := {"name": object.get(r.inputs, "name", r.name), "attributes": resources.elements(object.get(r.inputs, "attributes", []))}
}

_listener_policies[key] contains p if {
	some t in listener_policy_types
	some i in resources.indices(t)
	r := input.document.resources[i]
	some lb in elbs_named(r, "loadBalancerName")
	key := listener_key(lb, object.get(r.inputs, "loadBalancerPort", _unknown))
	some p in _listener_policy_set(r, lb)
}

# the SSL negotiation policies a ListenerPolicy sets: those its names (or, for names unknown until
# apply, its property dependencies) find among the load balancer's policies; policies of other
# types (stickiness, proxy protocol) are not negotiation policies and are left out
_listener_policy_set(r, lb) := {p |
	some n in resources.elements(object.get(r.inputs, "policyNames", []))
	is_string(n)
	resources.shown(n)
	some p in _named_policy(lb, n)
} | {p |
	some n in resources.elements(object.get(r.inputs, "policyNames", []))
	not _known_name(n)
	some p in _dependency_policies(r)
}

_known_name(n) if {
	is_string(n)
	resources.shown(n)
}

# a name the document declares for the load balancer: its SSL negotiation policies of that name
# (none when the policy is of another type); a name it does not declare: undeclared
_named_policy(lb, n) := {_ssl_policy(q) |
	some q in _policies_at[_policy_key(lb, n)]
	_is_ssl_negotiation(q)
} if {
	_policies_at[_policy_key(lb, n)]
} else := {{"name": n, "undeclared": true}}

_dependency_policies(r) := {_ssl_policy(q) |
	some urn in object.get(r, ["property_dependencies", "policyNames"], [])
	some q in object.get(_policies_by_urn, urn, set())
	_is_ssl_negotiation(q)
} if {
	count(object.get(r, ["property_dependencies", "policyNames"], [])) > 0
} else := {{"name": _unknown, "undeclared": true}}

_ssl_policy(q) := {
	"name": object.get(q.inputs, "policyName", q.name),
	"attributes": resources.elements(object.get(q.inputs, "policyAttributes", [])),
}

_is_ssl_negotiation(q) if q.inputs.policyTypeName == "SSLNegotiationPolicyType"

_policy_key(lb, name) := sprintf("%v/%v", [lb, name])

# LoadBalancerPolicies by load balancer and policy name, and by URN (built once)
_policies_at := {key: policies | some key, policies in _policies_at_key}

_policies_by_urn := {urn: policies | some urn, policies in _policies_of_urn}

_policies_at_key[key] contains q if {
	some t in load_balancer_policy_types
	some i in resources.indices(t)
	q := input.document.resources[i]
	some lb in elbs_named(q, "loadBalancerName")
	key := _policy_key(lb, object.get(q.inputs, "policyName", q.name))
}

_policies_of_urn[q.urn] contains q if {
	some t in load_balancer_policy_types
	some i in resources.indices(t)
	q := input.document.resources[i]
}

# ---------------------------------------------------------------- Kubernetes

# positions of the Ingresses, Services and IngressClasses, of every API version the document's
# types have (networking.k8s.io/v1 and v1beta1, extensions/v1beta1 Ingresses), and of their patches
ingress_indices := resources.kind_indices("Ingress")

service_indices := resources.kind_indices("Service")

_ingress_class_indices := resources.kind_indices("IngressClass")

annotations(r) := a if {
	a := r.inputs.metadata.annotations
	is_object(a)
} else := {}

# an annotation that is set to a non-empty value (a value unknown until apply is set)
annotated(r, key) if {
	v := annotations(r)[key]
	is_string(v)
	trim_space(v) != ""
}

# ---- LoadBalancer Services

ssl_cert_annotation := "service.beta.kubernetes.io/aws-load-balancer-ssl-cert"

ssl_ports_annotation := "service.beta.kubernetes.io/aws-load-balancer-ssl-ports"

ssl_negotiation_policy_annotation := "service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy"

# positions of the Services of type LoadBalancer
lb_service_indices := {i |
	some i in service_indices
	input.document.resources[i].inputs.spec.type == "LoadBalancer"
}

service_ports(r) := resources.elements(object.get(r.inputs, ["spec", "ports"], []))

# the entries of the ssl-ports annotation (comma-separated port numbers or names); none when it is
# not set or empty (then every port gets a TLS listener)
ssl_ports(r) := {x |
	some item in split(annotations(r)[ssl_ports_annotation], ",")
	x := trim_space(item)
	x != ""
} if {
	is_string(annotations(r)[ssl_ports_annotation])
} else := set()

# a Service port that the ssl-ports entries name, by number or by name
named_in_ssl_ports(r, port) if sprintf("%v", [_port(object.get(port, "port", _unknown))]) in ssl_ports(r)

named_in_ssl_ports(r, port) if object.get(port, "name", "") in ssl_ports(r)

udp(port) if upper(sprintf("%v", [object.get(port, "protocol", "TCP")])) == "UDP"

# ---- Ingresses of the AWS Load Balancer Controller

listen_ports_annotation := "alb.ingress.kubernetes.io/listen-ports"

certificate_arn_annotation := "alb.ingress.kubernetes.io/certificate-arn"

ssl_redirect_annotation := "alb.ingress.kubernetes.io/ssl-redirect"

ssl_policy_annotation := "alb.ingress.kubernetes.io/ssl-policy"

group_annotation := "alb.ingress.kubernetes.io/group.name"

alb_controller := "ingress.k8s.aws/alb"

# The Ingresses the AWS Load Balancer Controller serves: those of its class (the IngressClass its
# chart creates, "alb", or one of the document whose controller is ingress.k8s.aws/alb; the class
# annotation kubernetes.io/ingress.class before spec.ingressClassName), and those that name no
# class but carry its annotations or fall to a default IngressClass of the document that is its.
alb_ingress_indices := {i |
	some i in ingress_indices
	_alb(input.document.resources[i])
}

_alb_classes := {"alb"} | {resources.name_of(c) |
	some i in _ingress_class_indices
	c := input.document.resources[i]
	c.inputs.spec.controller == alb_controller
}

_default_alb_class if {
	some i in _ingress_class_indices
	c := input.document.resources[i]
	c.inputs.spec.controller == alb_controller
	annotations(c)["ingressclass.kubernetes.io/is-default-class"] == "true"
}

_alb(r) if _ingress_class(r) in _alb_classes

_alb(r) if {
	not _ingress_class(r)
	some key, _ in annotations(r)
	startswith(key, "alb.ingress.kubernetes.io/")
}

_alb(r) if {
	not _ingress_class(r)
	_default_alb_class
}

_ingress_class(r) := c if {
	c := annotations(r)["kubernetes.io/ingress.class"]
	is_string(c)
} else := c if {
	c := r.inputs.spec.ingressClassName
	is_string(c)
}

# the listen-ports entries, when the annotation is a JSON list of objects ({"HTTP": 80}, ...)
_listen_entries(r) := entries if {
	raw := annotations(r)[listen_ports_annotation]
	is_string(raw)
	json.is_valid(raw)
	entries := json.unmarshal(raw)
	is_array(entries)
	every e in entries {
		is_object(e)
	}
}

listen_ports_set(r) if annotations(r)[listen_ports_annotation]

# listen-ports is set but is not such a list (or is unknown until apply)
unreadable_listen_ports(r) if {
	listen_ports_set(r)
	not _listen_entries(r)
}

# The listeners [protocol, port] the controller gives an Ingress: those of listen-ports; without
# it, HTTPS on 443 when certificate-arn names a certificate and HTTP on 80 otherwise (spec.tls
# plays no part in it: its hosts only serve to discover certificates for HTTPS listeners).
alb_listeners(r) := {[protocol, port] |
	some e in _listen_entries(r)
	some protocol, port in e
} if {
	listen_ports_set(r)
} else := {["HTTPS", 443]} if {
	annotated(r, certificate_arn_annotation)
} else := {["HTTP", 80]}

# IngressGroups: ssl-redirect and ssl-policy are exclusive to a group, so one Ingress's setting
# applies to every Ingress of its group (alb.ingress.kubernetes.io/group.name); an Ingress without
# that annotation is a group of its own
group_key(i) := concat("", ["group:", n]) if {
	n := annotations(input.document.resources[i])[group_annotation]
	is_string(n)
	n != ""
} else := sprintf("ingress:%v", [i])

_redirect_groups := {group_key(i) |
	some i in alb_ingress_indices
	annotated(input.document.resources[i], ssl_redirect_annotation)
}

_policy_groups := {group_key(i) |
	some i in alb_ingress_indices
	annotated(input.document.resources[i], ssl_policy_annotation)
}

redirected(i) if group_key(i) in _redirect_groups

group_has_ssl_policy(i) if group_key(i) in _policy_groups

# ---------------------------------------------------------------- Gateway API
# Gateways, ListenerSets (which add listeners to a Gateway; XListenerSet in the experimental
# gateway.networking.x-k8s.io group) and routes of the Gateway API groups (every version, and
# their patches; not other groups' kinds of the same name, such as Istio's Gateway). A listener
# (the API's Listener / ListenerEntry): protocol HTTP, HTTPS, TLS, TCP, UDP or an implementation's
# domain-prefixed one; an HTTPS listener, and a TLS one, terminates TLS (tls.mode Terminate, the
# default) or passes it through to the pods (Passthrough).

_gateway_api_groups := {"gateway.networking.k8s.io", "gateway.networking.x-k8s.io"}

# type -> [kind, group] of the document's Gateway API types
_gateway_api_types := {t: [resources.kind(t), group] |
	some t in resources.k8s_types(input.document)
	group := split(split(t, ":")[1], "/")[0]
	group in _gateway_api_groups
}

# positions of the objects that hold listeners (Gateways and ListenerSets)
gateway_indices := {i |
	some t, k in _gateway_api_types
	k[0] in {"Gateway", "ListenerSet", "XListenerSet"}
	some i in resources.indices(t)
}

# positions of the routes (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute, ...)
_route_indices := {i |
	some t, k in _gateway_api_types
	endswith(k[0], "Route")
	some i in resources.indices(t)
}

holder_kind(gw) := _gateway_api_types[gw.type][0]

# a holder's listeners; none when its spec leaves them out (a patch); one listener unknown until
# apply when the spec or the list is
gateway_listeners(gw) := [l | some l in listeners] if {
	spec := object.get(gw.inputs, "spec", {})
	is_object(spec)
	listeners := object.get(spec, "listeners", [])
	is_array(listeners)
} else := [] if {
	spec := object.get(gw.inputs, "spec", {})
	is_object(spec)
	object.get(spec, "listeners", null) == null
} else := [_unknown]

# what a listener carries in the clear, for a finding; undefined for one that terminates or passes
# TLS, and for an HTTP listener whose every route redirects to https (see _redirected)
plain_listener(gw, l) := sprintf("%s listener %v is unknown until apply, so whether it carries plain traffic cannot be established", [holder_kind(gw), l]) if {
	not is_object(l)
} else := sprintf("%s listener %v serves plain HTTP on port %v (the stack's routes do not show that every request to it is redirected to https)", [holder_kind(gw), _listener_name(l), _listener_port(l)]) if {
	object.get(l, "protocol", null) == "HTTP"
	not _redirected(gw, l)
} else := sprintf("%s listener %v carries plain %s on port %v (unless the pods terminate TLS themselves)", [holder_kind(gw), _listener_name(l), l.protocol, _listener_port(l)]) if {
	object.get(l, "protocol", null) in {"TCP", "UDP"}
} else := sprintf("%s listener %v has protocol %v, so whether it carries plain traffic cannot be established", [holder_kind(gw), _listener_name(l), object.get(l, "protocol", null)]) if {
	not object.get(l, "protocol", null) in {"HTTP", "HTTPS", "TLS"}
}

# a patch of a Gateway or ListenerSet outside the document: listeners merge by name under
# server-side apply, so the live object's other listeners stay as they are, unseen
patched_listeners(gw) := sprintf("%s patch: the live %s's listeners that the patch does not name are not in the document, so whether they carry plain traffic cannot be established", [holder_kind(gw), holder_kind(gw)]) if {
	resources.is_patch(gw)
}

_listener_name(l) := object.get(l, "name", "(unnamed)")

_listener_port(l) := object.get(l, "port", "?")

# An HTTP listener answers plain HTTP only with a redirect when some route of the document is
# attached to it and every route that is, or may be (parentRefs unknown until apply, or attached
# as a default Gateway's), is an HTTPRoute that redirects every request to https. A GRPCRoute on an
# HTTP listener is served in the clear (h2c).
_redirected(gw, l) if {
	attached := [r | some j in _route_indices; r := input.document.resources[j]; _attached(r, gw, l)]
	count(attached) > 0
	every j in _route_indices {
		_redirect_or_elsewhere(input.document.resources[j], gw, l)
	}
}

_redirect_or_elsewhere(route, gw, l) if {
	_gateway_api_types[route.type][0] == "HTTPRoute"
	_redirects_to_https(route)
} else if {
	not _attached(route, gw, l)
	not _may_attach(route, gw, l)
}

# a route's parentRef names the holder (group and kind default to the Gateway API's Gateway,
# namespace to the route's own) and, when it names them, the listener's sectionName and port
_attached(route, gw, l) if {
	some ref in _parent_refs(route)
	is_object(ref)
	_names_holder(ref, gw)
	object.get(ref, "name", null) == resources.name_of(gw)
	object.get(ref, "namespace", resources.namespace(route)) == resources.namespace(gw)
	_names_listener(ref, l)
}

# a route that may be attached: its spec or parentRefs unknown until apply, a parentRef unknown
# or naming the holder's kind by a name or namespace unknown until apply, or a route that asks for
# the default Gateway beside a Gateway that is one
_may_attach(route, _, _) if {
	spec := object.get(route.inputs, "spec", {})
	not is_object(spec)
}

_may_attach(route, _, _) if {
	spec := object.get(route.inputs, "spec", {})
	is_object(spec)
	refs := object.get(spec, "parentRefs", [])
	refs != null
	not is_array(refs)
}

_may_attach(route, _, _) if {
	some ref in _parent_refs(route)
	not is_object(ref)
}

_may_attach(route, gw, l) if {
	some ref in _parent_refs(route)
	is_object(ref)
	_names_holder(ref, gw)
	_names_listener(ref, l)
	some field in ["name", "namespace"]
	v := object.get(ref, field, "")
	not resources.settled(v)
}

_may_attach(route, gw, _) if {
	spec := object.get(route.inputs, "spec", {})
	is_object(spec)
	object.get(spec, "useDefaultGateway", null) != null
	gw_spec := object.get(gw.inputs, "spec", {})
	is_object(gw_spec)
	object.get(gw_spec, "defaultScope", null) != null
}

_parent_refs(route) := refs if {
	spec := object.get(route.inputs, "spec", {})
	is_object(spec)
	refs := object.get(spec, "parentRefs", [])
	is_array(refs)
} else := []

_names_holder(ref, gw) if {
	object.get(ref, "group", "gateway.networking.k8s.io") == _gateway_api_types[gw.type][1]
	object.get(ref, "kind", "Gateway") == holder_kind(gw)
}

_names_listener(ref, l) if {
	name := object.get(l, "name", null)
	object.get(ref, "sectionName", name) == name
	port := object.get(l, "port", null)
	object.get(ref, "port", port) == port
}

# every rule of the route sends no request to a backend and redirects it with scheme https
_redirects_to_https(route) if {
	spec := object.get(route.inputs, "spec", {})
	is_object(spec)
	rules := object.get(spec, "rules", [])
	is_array(rules)
	count(rules) > 0
	every rule in rules {
		is_object(rule)
		count(resources.elements(object.get(rule, "backendRefs", []))) == 0
		some f in resources.elements(object.get(rule, "filters", []))
		is_object(f)
		object.get(f, "type", null) == "RequestRedirect"
		redirect := object.get(f, "requestRedirect", {})
		is_object(redirect)
		object.get(redirect, "scheme", null) == "https"
	}
}
