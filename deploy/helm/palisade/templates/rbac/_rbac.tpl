{{/*
Names of the RBAC objects. Cluster-scoped ones carry the release namespace, so two releases in
two namespaces never share (or fight over) a ClusterRole.
*/}}
{{- define "palisade.rbac.clusterName" -}}
{{- printf "%s-%s-%s" (include "palisade.fullname" .root) (include "palisade.namespace" .root) .part | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "palisade.rbac.subject" -}}
- kind: ServiceAccount
  name: {{ include "palisade.serviceAccountName" . }}
  namespace: {{ include "palisade.namespace" . }}
{{- end -}}

{{/* the namespace of the fence agents' credentials Secrets (FencePolicy credentialsNamespace) */}}
{{- define "palisade.rbac.credentialsNamespace" -}}
{{- default (include "palisade.namespace" .) .Values.rbac.fenceAgentCredentials.namespace -}}
{{- end -}}

{{- define "palisade.rbac.updateTriggerNamespace" -}}
{{- default (include "palisade.namespace" .) .Values.rbac.updateTriggerNamespace -}}
{{- end -}}

{{/*
The namespace of the browser sessions' Secrets (console.session.namespace, default
<namespace>-sessions): a namespace of their own, so the Role that lists and writes them reaches no
other Secret — not the fence agents' credentials, the OIDC client secret or the session key.
*/}}
{{- define "palisade.sessionNamespace" -}}
{{- $ns := include "palisade.namespace" . -}}
{{- $given := "" -}}
{{- with .Values.console }}{{ with .session }}{{ $given = .namespace | default "" }}{{ end }}{{ end -}}
{{- default (printf "%s-sessions" $ns | trunc 63 | trimSuffix "-") $given -}}
{{- end -}}

{{/* The Secret holding the key that encrypts the sessions (server.session.store.keySecret). */}}
{{- define "palisade.sessionKeySecretName" -}}
{{- printf "%s-session-key" (include "palisade.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The fence agents' credential Secrets Palisade may read, by name: rbac.fenceAgentCredentials.secretNames
and every secretRefs name of fencing.policies, sorted, each once. Fails on a policy whose
credentialsNamespace is another namespace: Palisade reads credentials from that one only.
*/}}
{{- define "palisade.rbac.credentialSecretNames" -}}
{{- $credNs := include "palisade.rbac.credentialsNamespace" . -}}
{{- $names := list -}}
{{- range (.Values.rbac.fenceAgentCredentials.secretNames | default list) }}{{ $names = append $names . }}{{ end -}}
{{- range $policy, $spec := .Values.fencing.policies -}}
{{- with $spec.agent -}}
{{- if and .credentialsNamespace (ne .credentialsNamespace $credNs) -}}
{{- fail (printf "fencing.policies.%s.agent.credentialsNamespace (%s) must be rbac.fenceAgentCredentials.namespace (%s): Palisade reads fence agents' credentials there only" $policy .credentialsNamespace $credNs) -}}
{{- end -}}
{{- range (.secretRefs | default list) }}{{ $names = append $names .name }}{{ end -}}
{{- end -}}
{{- end -}}
{{- $names | uniq | sortAlpha | toJson -}}
{{- end -}}

{{/*
The namespaces whose Deployments, StatefulSets and Jobs may take part in instance IDs
(instanceIds.namespaces): a list, ["*"] for every namespace, [] for none.
*/}}
{{- define "palisade.instanceIdNamespaces" -}}
{{- $list := list -}}
{{- with .Values.instanceIds }}{{ $list = .namespaces | default list }}{{ end -}}
{{- if and (has "*" $list) (gt (len $list) 1) -}}
{{- fail "instanceIds.namespaces: \"*\" (every namespace) stands alone; list namespaces or give [\"*\"]" -}}
{{- end -}}
{{- $list | uniq | toJson -}}
{{- end -}}

{{/* The rules on the workloads whose annotation holds their instance-ID map (one namespace, or all). */}}
{{- define "palisade.rbac.instanceIdWorkloadRules" -}}
# the instance-ID map lives in an annotation of the pod's workload: read it, write it by
# compare-and-swap (server/instanceIds/cas.ts)
- apiGroups: [apps]
  resources: [deployments, statefulsets]
  verbs: [get, patch]
# a Job's pods: the map lives on the Job
- apiGroups: [batch]
  resources: [jobs]
  verbs: [get, patch]
{{- end -}}
