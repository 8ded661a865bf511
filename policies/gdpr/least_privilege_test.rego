package gdpr.least_privilege_test

import data.gdpr.least_privilege
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-32.1b-1", "mandatory", type, name, msg)

_policy(name, statements) := fixtures.resource("aws:iam/policy:Policy", name, {"policy": json.marshal({"Version": "2012-10-17", "Statement": statements})})

pass_resources := [
	fixtures.launch_template("lt", "personal", {}),
	_policy("scoped", [{"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::ds/*"}]),
	_policy("deny-all", [{"Effect": "Deny", "Action": "*", "Resource": "*"}]),
]

fail_resources := [
	fixtures.launch_template("lt", "personal", {"metadataOptions": {"httpTokens": "optional"}}),
	_policy("admin", [{"Effect": "Allow", "Action": "*", "Resource": "*"}]),
	_policy("passrole", [{"Effect": "Allow", "Action": ["iam:PassRole"], "Resource": ["*"]}]),
]

test_pass_scoped_iam_and_imdsv2 if {
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_wildcards_and_imdsv1 if {
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "launch template allows IMDSv1 (metadataOptions.httpTokens is \"optional\", not \"required\")"),
		_f("aws:iam/policy:Policy", "admin", "IAM policy allows Action \"*\" on Resource \"*\""),
		_f("aws:iam/policy:Policy", "passrole", "IAM policy allows iam:PassRole on any role (Resource \"*\")"),
	}
}

# an EC2 instance checked like a launch template (audit A2)
_instance(inputs) := fixtures.resource("aws:ec2/instance:Instance", "box", object.union(
	{
		"tags": fixtures.tags("personal"),
		"instanceType": "g5.xlarge",
		"rootBlockDevice": {"encrypted": true, "deleteOnTermination": true, "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"},
		"metadataOptions": {"httpTokens": "required"},
	},
	inputs,
))

_weak_instance := _instance({
	"associatePublicIpAddress": true,
	"keyName": "ops-key",
	"metadataOptions": {"httpTokens": "optional"},
	"rootBlockDevice": {"encrypted": false, "deleteOnTermination": false},
	"userData": "#!/bin/sh\nexport DB_PASSWORD=hunter2\n",
})

_attachment(type, name, arn) := fixtures.resource(type, name, {"policyArn": arn, "role": "ops"})

test_pass_hardened_instance_and_scoped_managed_policies if {
	resources := [
		_instance({}),
		_attachment("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "ssm", "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"),
		fixtures.resource("aws:iam/role:Role", "node", {"managedPolicyArns": ["arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy"]}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# audit A1: admin through AWS-managed policy attachments and a role's managedPolicyArns
test_fail_admin_through_managed_policies if {
	resources := [
		_attachment("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "role-admin", "arn:aws:iam::aws:policy/AdministratorAccess"),
		_attachment("aws:iam/userPolicyAttachment:UserPolicyAttachment", "user-admin", "arn:aws-cn:iam::aws:policy/AdministratorAccess"),
		_attachment("aws:iam/groupPolicyAttachment:GroupPolicyAttachment", "group-iam", "arn:aws:iam::aws:policy/IAMFullAccess"),
		fixtures.resource("aws:iam/role:Role", "ops", {"managedPolicyArns": ["arn:aws:iam::aws:policy/AdministratorAccess"]}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "role-admin", "attaches the AWS-managed policy AdministratorAccess, which allows Action \"*\" on Resource \"*\""),
		_f("aws:iam/userPolicyAttachment:UserPolicyAttachment", "user-admin", "attaches the AWS-managed policy AdministratorAccess, which allows Action \"*\" on Resource \"*\""),
		_f("aws:iam/groupPolicyAttachment:GroupPolicyAttachment", "group-iam", "attaches the AWS-managed policy IAMFullAccess, which allows iam:PassRole on any role"),
		_f("aws:iam/role:Role", "ops", "attaches the AWS-managed policy AdministratorAccess, which allows Action \"*\" on Resource \"*\""),
	}
}

# audit A2: an instance without IMDSv2
test_fail_instance_allows_imdsv1 if {
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [_weak_instance])
	v == {_f("aws:ec2/instance:Instance", "box", "instance allows IMDSv1 (metadataOptions.httpTokens is \"optional\", not \"required\")")}
}

# audit D: PassRole through an action wildcard or on a role ARN wildcard is PassRole on any role
test_fail_passrole_action_and_role_wildcards if {
	resources := [
		_policy("arn-wildcard", [{"Effect": "Allow", "Action": "iam:PassRole", "Resource": "arn:aws:iam::*:role/*"}]),
		_policy("action-wildcard", [{"Effect": "Allow", "Action": "iam:Pass*", "Resource": "*"}]),
		_policy("own-account-roles", [{"Effect": "Allow", "Action": ["iam:*Role"], "Resource": ["arn:aws-cn:iam::444455556666:role/*"]}]),
		_policy("any-action-any-role", [{"Effect": "Allow", "Action": "*", "Resource": "arn:aws:iam::*:*"}]),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:iam/policy:Policy", "arn-wildcard", "IAM policy allows iam:PassRole on any role (Resource \"arn:aws:iam::*:role/*\")"),
		_f("aws:iam/policy:Policy", "action-wildcard", "IAM policy allows iam:PassRole on any role (Resource \"*\")"),
		_f("aws:iam/policy:Policy", "own-account-roles", "IAM policy allows iam:PassRole on any role (Resource \"arn:aws-cn:iam::444455556666:role/*\")"),
		_f("aws:iam/policy:Policy", "any-action-any-role", "IAM policy allows iam:PassRole on any role (Resource \"arn:aws:iam::*:*\")"),
	}
}

test_pass_passrole_on_named_roles if {
	resources := [
		_policy("named", [{"Effect": "Allow", "Action": "iam:PassRole", "Resource": "arn:aws:iam::111122223333:role/seedance-node"}]),
		_policy("path", [{"Effect": "Allow", "Action": "iam:Pass*", "Resource": ["arn:aws:iam::111122223333:role/seedance/*"]}]),
		_policy("other-iam", [{"Effect": "Allow", "Action": ["iam:GetRole", "iam:ListRoles"], "Resource": "*"}]),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# admin in other spellings: an ARN of wildcards, NotAction on every resource, Action "*" with NotResource
test_fail_admin_in_other_spellings if {
	resources := [
		_policy("arn-admin", [{"Effect": "Allow", "Action": "*", "Resource": "arn:aws:*:*:*:*"}]),
		_policy("not-action", [{"Effect": "Allow", "NotAction": ["iam:CreateUser"], "Resource": "*"}]),
		_policy("not-resource", [{"Effect": "Allow", "Action": "*", "NotResource": ["arn:aws:s3:::audit/*"]}]),
		_policy("scoped-not-action", [{"Effect": "Allow", "NotAction": "iam:*", "Resource": "arn:aws:s3:::data/*"}]),
		_policy("deny-not-action", [{"Effect": "Deny", "NotAction": "s3:GetObject", "Resource": "*"}]),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:iam/policy:Policy", "arn-admin", "IAM policy allows Action \"*\" on every resource (Resource \"arn:aws:*:*:*:*\")"),
		_f("aws:iam/policy:Policy", "not-action", "IAM policy allows every action except iam:CreateUser on Resource \"*\" (NotAction)"),
		_f("aws:iam/policy:Policy", "not-resource", "IAM policy allows Action \"*\" on every resource but those in NotResource"),
	}
}

# red team: a spot fleet launch specification has no metadata options, so its instances take
# IMDSv1 unless the account's defaults say otherwise: use launch templates
test_fail_spot_fleet_launch_specification_allows_imdsv1 if {
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.spot_fleet("sfr", "internal", [{}])])
	v == {_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "sfr", "spot fleet launch specification allows IMDSv1 (metadataOptions.httpTokens is \"optional\", not \"required\")")}
}

# Karpenter's EC2NodeClass: metadataOptions default to httpTokens "required"; one that sets
# "optional" allows IMDSv1
test_karpenter_node_class_metadata_options if {
	resources := [
		fixtures.node_class("defaults", fixtures.node_class_defaults),
		fixtures.node_class("hop", object.union(fixtures.node_class_defaults, {"metadataOptions": {"httpPutResponseHopLimit": 2}})),
		fixtures.node_class("v1", object.union(fixtures.node_class_defaults, {"metadataOptions": {"httpTokens": "optional"}})),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f(fixtures.node_class_type, "v1", "EC2NodeClass allows IMDSv1 (metadataOptions.httpTokens is optional, not \"required\")")}
}

# a spec unknown until apply may allow IMDSv1; a patch that sets httpTokens is judged, one that
# sets no metadataOptions leaves the live class's
test_karpenter_node_class_metadata_unknown_and_patched if {
	resources := [
		fixtures.resource(fixtures.node_class_type, "late-spec", {"metadata": {"name": "late-spec"}, "spec": "[unknown]"}),
		fixtures.resource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClassPatch", "imdsv1", {"metadata": {"name": "shared"}, "spec": {"metadataOptions": {"httpTokens": "optional"}}}),
		fixtures.resource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClassPatch", "labels-only", {"metadata": {"name": "shared", "labels": {"team": "ml"}}}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(fixtures.node_class_type, "late-spec", "EC2NodeClass may allow IMDSv1: metadataOptions.httpTokens is unknown until apply, so \"required\" cannot be established"),
		_f("kubernetes:karpenter.k8s.aws/v1:EC2NodeClassPatch", "imdsv1", "EC2NodeClass allows IMDSv1 (metadataOptions.httpTokens is optional, not \"required\")"),
	}
}

# a group launching from a launch template the document does not hold (another stack's, an
# aws-native one, an id unknown until apply) cannot be checked and is reported; one launching from
# the document's template is judged by that template
# whatever the data class
test_fail_a_group_launching_from_a_template_the_document_lacks_least_privilege if {
	lt := object.union(fixtures.launch_template("lt", "public", {}), {"id": "lt-0cccccccccccccccc"})
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [
		lt,
		_unseen_group("own", "public", "lt-0cccccccccccccccc"),
		_unseen_group("other", "public", "lt-0bbbbbbbbbbbbbbbb"),
	])
	v == {_f("aws:autoscaling/group:Group", "other", "group launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: its instance metadata options (IMDSv2) cannot be checked")}
}

_unseen_group(name, data_class, ref) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"maxSize": 2, "launchTemplate": {"id": ref, "version": "$Latest"},
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
})

# review: an instance that leaves its metadata options to a launch template of the document takes
# the template's; its own setting wins; without either, EC2's default (optional)
test_an_instance_takes_its_template_s_metadata_options if {
	lt := object.union(fixtures.launch_template("lt", "internal", {}), {"id": "lt-0aaaaaaaaaaaaaaaa"})
	resources := [
		lt,
		fixtures.resource("aws:ec2/instance:Instance", "from-template", {"launchTemplate": {"id": "lt-0aaaaaaaaaaaaaaaa"}}),
		fixtures.resource("aws:ec2/instance:Instance", "own-optional", {"launchTemplate": {"id": "lt-0aaaaaaaaaaaaaaaa"}, "metadataOptions": {"httpTokens": "optional"}}),
		fixtures.resource("aws:ec2/instance:Instance", "no-template", {}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	{f.resource_name | some f in v} == {"own-optional", "no-template"}
}

# red team: PowerUserAccess is the NotAction statement (every action but iam:*, organizations:*,
# account:* on Resource "*"), attached or in a role's managedPolicyArns; a job-function policy of
# a narrower scope (ReadOnlyAccess) still passes
test_fail_power_user_access_attached if {
	resources := [
		_attachment("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "power", "arn:aws:iam::aws:policy/PowerUserAccess"),
		fixtures.resource("aws:iam/role:Role", "ops", {"managedPolicyArns": ["arn:aws-cn:iam::aws:policy/PowerUserAccess"]}),
		_attachment("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "reader", "arn:aws:iam::aws:policy/ReadOnlyAccess"),
		_attachment("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "own", "arn:aws:iam::111122223333:policy/PowerUserAccess"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "power", "attaches the AWS-managed policy PowerUserAccess, which allows every action except iam:*, organizations:*, account:* on Resource \"*\" (NotAction)"),
		_f("aws:iam/role:Role", "ops", "attaches the AWS-managed policy PowerUserAccess, which allows every action except iam:*, organizations:*, account:* on Resource \"*\" (NotAction)"),
	}
}

# red team: a secret managed-policy ARN may name AdministratorAccess; one unknown until apply is
# another resource's output (a Policy whose document is judged itself) and is not judged
test_fail_secret_managed_policy_arn if {
	resources := [
		fixtures.resource("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "attach", {"policyArn": "[secret]", "role": "r"}),
		fixtures.resource("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "later", {"policyArn": "[unknown]", "role": "r"}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "attach", "attaches a managed policy whose ARN is secret, so administrator access (Action \"*\" on Resource \"*\") cannot be ruled out")}
}

# red team: httpTokens the document does not show may be "optional"; the message says why
test_fail_hidden_http_tokens if {
	resources := [
		fixtures.launch_template("lt", "personal", {"metadataOptions": {"httpTokens": "[secret]"}}),
		fixtures.launch_template("later", "personal", {"metadataOptions": {"httpTokens": "[unknown]"}}),
		fixtures.node_class("nodes", {"metadataOptions": {"httpTokens": "[secret]"}}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "launch template may allow IMDSv1: metadataOptions.httpTokens is secret, so \"required\" cannot be established"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "later", "launch template may allow IMDSv1: metadataOptions.httpTokens is unknown until apply, so \"required\" cannot be established"),
		_f("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "nodes", "EC2NodeClass may allow IMDSv1: metadataOptions.httpTokens is secret, so \"required\" cannot be established"),
	}
}

# Role trust policies (assumeRolePolicy, a JSON string in pulumi-aws): anyone, or every identity of
# a web-identity provider, may not assume a role
_role(name, statements) := fixtures.resource("aws:iam/role:Role", name, {"assumeRolePolicy": json.marshal({"Version": "2012-10-17", "Statement": statements})})

_oidc := "arn:aws:iam::111122223333:oidc-provider/oidc.eks.eu-central-1.amazonaws.com/id/ABCDEF0123456789"

_eks := "oidc.eks.eu-central-1.amazonaws.com/id/ABCDEF0123456789"

_web(condition) := object.union(
	{"Effect": "Allow", "Principal": {"Federated": _oidc}, "Action": "sts:AssumeRoleWithWebIdentity"},
	condition,
)

_trusted_roles := [
	_role("node", [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]),
	_role("flow-logs", [{"Effect": "Allow", "Principal": {"Service": "vpc-flow-logs.amazonaws.com"}, "Action": "sts:AssumeRole", "Condition": {"StringEquals": {"aws:SourceAccount": "111122223333"}}}]),
	_role("partner", [{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::444455556666:root"}, "Action": "sts:AssumeRole"}]),
	_role("org", [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole", "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abc123def4"}}}]),
	_role("irsa", [_web({"Condition": {"StringEquals": {sprintf("%s:sub", [_eks]): "system:serviceaccount:train:trainer", sprintf("%s:aud", [_eks]): "sts.amazonaws.com"}}})]),
	_role("irsa-namespace", [_web({"Condition": {"StringLike": {sprintf("%s:sub", [_eks]): "system:serviceaccount:train:*"}}})]),
	_role("cognito", [{"Effect": "Allow", "Principal": {"Federated": "cognito-identity.amazonaws.com"}, "Action": "sts:AssumeRoleWithWebIdentity", "Condition": {"StringEquals": {"cognito-identity.amazonaws.com:aud": "eu-central-1:11111111-2222-3333-4444-555555555555"}}}]),
	# subject patterns that pin an owner: a GitHub organisation, a GitLab group; an audience of a
	# provider whose tokens' audience the requester does not choose
	_role("github-org", [_github({"StringLike": {"token.actions.githubusercontent.com:sub": ["repo:example-org/*", "repository_owner:example-org:*"]}})]),
	_role("terraform-org", [_federated("app.terraform.io", {"StringEquals": {"app.terraform.io:aud": "aws.workload.identity"}, "StringLike": {"app.terraform.io:sub": "organization:example-org:project:*:workspace:*:run_phase:*"}})]),
	_role("gitlab-group", [{"Effect": "Allow", "Principal": {"Federated": "arn:aws:iam::111122223333:oidc-provider/gitlab.com"}, "Action": "sts:AssumeRoleWithWebIdentity", "Condition": {"StringLike": {"gitlab.com:sub": "project_path:example-group/*"}}}]),
	_role("other-idp-aud", [{"Effect": "Allow", "Principal": {"Federated": "arn:aws:iam::111122223333:oidc-provider/example.okta.com/oauth2/default"}, "Action": "sts:AssumeRoleWithWebIdentity", "Condition": {"StringEquals": {"example.okta.com/oauth2/default:aud": "0oa1b2c3d4"}}}]),
	fixtures.resource("aws:iam/role:Role", "later", {"assumeRolePolicy": "[unknown]"}),
]

test_pass_named_trust if {
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _trusted_roles)
	v == set()
}

_anyone := "role trust policy (assumeRolePolicy) lets anyone assume the role: Principal \"*\" without a condition that narrows it to an account, organisation or VPC"

_every_identity := sprintf("role trust policy lets every identity of the web-identity provider %s assume the role: no condition on %s:sub that names particular identities (%s:aud does not: whoever asks for a token chooses its audience)", [_oidc, lower(_eks), lower(_eks)])

_github_provider := "arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com"

_github(condition) := {"Effect": "Allow", "Principal": {"Federated": _github_provider}, "Action": "sts:AssumeRoleWithWebIdentity", "Condition": condition}

_federated(host, condition) := {"Effect": "Allow", "Principal": {"Federated": sprintf("arn:aws:iam::111122223333:oidc-provider/%s", [host])}, "Action": "sts:AssumeRoleWithWebIdentity", "Condition": condition}

_every_federated(host) := sprintf("role trust policy lets every identity of the web-identity provider arn:aws:iam::111122223333:oidc-provider/%s assume the role: no condition on %s:sub that names particular identities (%s:aud does not: whoever asks for a token chooses its audience)", [host, host, host])

_every_github := "role trust policy lets every identity of the web-identity provider arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com assume the role: no condition on token.actions.githubusercontent.com:sub that names particular identities (token.actions.githubusercontent.com:aud does not: whoever asks for a token chooses its audience)"

test_fail_open_trust if {
	roles := [
		_role("star", [{"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"}]),
		_role("aws-star", [{"Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam::111122223333:root", "*"]}, "Action": "sts:AssumeRole"}]),
		# a condition that does not narrow who asks (aws:SourceIp), or admits any account (a wildcard)
		_role("source-ip", [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole", "Condition": {"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}}}]),
		_role("any-account", [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole", "Condition": {"StringLike": {"aws:PrincipalAccount": "*"}}}]),
		_role("irsa-any", [_web({})]),
		_role("irsa-aud-only", [_web({"Condition": {"StringEquals": {sprintf("%s:aud", [_eks]): "sts.amazonaws.com"}}})]),
		_role("irsa-sub-star", [_web({"Condition": {"StringLike": {sprintf("%s:sub", [_eks]): "*"}}})]),
		# red team: a pattern that admits the generic audience, or it among the alternatives
		_role("irsa-aud-pattern", [_web({"Condition": {"StringLike": {sprintf("%s:aud", [_eks]): "sts.*"}}})]),
		_role("irsa-aud-either", [_web({"Condition": {"StringEquals": {sprintf("%s:aud", [_eks]): ["my-app", "sts.amazonaws.com"]}}})]),
		# red team: an audience of its own names no one where the requester chooses it (a pod's
		# projected token, a GitHub job's token), and a subject pattern that fixes no owner names no one
		_role("irsa-aud-own", [_web({"Condition": {"StringLike": {sprintf("%s:aud", [_eks]): "my-app-*"}}})]),
		_role("irsa-any-namespace", [_web({"Condition": {"StringLike": {sprintf("%s:sub", [_eks]): "system:serviceaccount:*:trainer"}}})]),
		_role("github-any-repo", [_github({"StringLike": {"token.actions.githubusercontent.com:sub": "repo:*"}})]),
		_role("github-owner-prefix", [_github({"StringLike": {"token.actions.githubusercontent.com:sub": ["repo:example-org/*", "repo:example*"]}})]),
		_role("github-aud-own", [_github({"StringEquals": {"token.actions.githubusercontent.com:aud": "my-deploy-role"}})]),
		# red team (stop 34): an enterprise's own GitHub issuer, GitHub Enterprise Server, a
		# self-managed GitLab and Terraform Cloud let the job choose the audience too
		_role("github-enterprise", [_federated("token.actions.githubusercontent.com/my-enterprise", {"StringLike": {"token.actions.githubusercontent.com/my-enterprise:sub": "repo:*"}})]),
		_role("ghes-aud", [_federated("github.example.com/_services/token", {"StringEquals": {"github.example.com/_services/token:aud": "sts.example"}})]),
		_role("gitlab-self-aud", [_federated("gitlab.example.com", {"StringEquals": {"gitlab.example.com:aud": "https://gitlab.example.com"}})]),
		_role("terraform-any-org", [_federated("app.terraform.io", {"StringLike": {"app.terraform.io:sub": "organization:*"}})]),
		fixtures.resource("aws:iam/role:Role", "hidden", {"assumeRolePolicy": "[secret]"}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, roles)
	v == {
		_f("aws:iam/role:Role", "star", _anyone),
		_f("aws:iam/role:Role", "aws-star", _anyone),
		_f("aws:iam/role:Role", "source-ip", _anyone),
		_f("aws:iam/role:Role", "any-account", _anyone),
		_f("aws:iam/role:Role", "irsa-any", _every_identity),
		_f("aws:iam/role:Role", "irsa-aud-only", _every_identity),
		_f("aws:iam/role:Role", "irsa-sub-star", _every_identity),
		_f("aws:iam/role:Role", "irsa-aud-pattern", _every_identity),
		_f("aws:iam/role:Role", "irsa-aud-either", _every_identity),
		_f("aws:iam/role:Role", "irsa-aud-own", _every_identity),
		_f("aws:iam/role:Role", "irsa-any-namespace", _every_identity),
		_f("aws:iam/role:Role", "github-any-repo", _every_github),
		_f("aws:iam/role:Role", "github-owner-prefix", _every_github),
		_f("aws:iam/role:Role", "github-aud-own", _every_github),
		_f("aws:iam/role:Role", "github-enterprise", _every_federated("token.actions.githubusercontent.com/my-enterprise")),
		_f("aws:iam/role:Role", "ghes-aud", _every_federated("github.example.com/_services/token")),
		_f("aws:iam/role:Role", "gitlab-self-aud", _every_federated("gitlab.example.com")),
		_f("aws:iam/role:Role", "terraform-any-org", _every_federated("app.terraform.io")),
		_f("aws:iam/role:Role", "hidden", "role trust policy (assumeRolePolicy) is secret, so a trust that lets anyone assume the role cannot be ruled out"),
	}
}

# red team: an instance on a template the document lacks was also said to allow IMDSv1 ("optional",
# EC2's default), which it takes from that template; only "cannot be checked" is true. Its own
# setting is still judged.
test_an_instance_on_a_template_the_document_lacks_is_not_called_optional if {
	resources := [
		fixtures.resource("aws:ec2/instance:Instance", "outside", {"launchTemplate": {"id": "lt-0bbbbbbbbbbbbbbbb"}}),
		fixtures.resource("aws:ec2/instance:Instance", "outside-own", {"launchTemplate": {"id": "lt-0bbbbbbbbbbbbbbbb"}, "metadataOptions": {"httpTokens": "optional"}}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:ec2/instance:Instance", "outside", "instance launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: its instance metadata options (IMDSv2) cannot be checked"),
		_f("aws:ec2/instance:Instance", "outside-own", "instance allows IMDSv1 (metadataOptions.httpTokens is \"optional\", not \"required\")"),
	}
}
