{{/*
Names of the RBAC objects. Cluster-scoped ones carry the release namespace, so two releases in
two namespaces never share (or fight over) a ClusterRole.
*/}}
{{- define "palisade.rbac.clusterName" -}}
{{- printf "%s-%s-%s" (include "palisade.fullname" .root) .root.Release.Namespace .part | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "palisade.rbac.subject" -}}
- kind: ServiceAccount
  name: {{ include "palisade.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
{{- end -}}

{{/* the namespace of the fence agents' credentials Secrets (FencePolicy credentialsNamespace) */}}
{{- define "palisade.rbac.credentialsNamespace" -}}
{{- default .Release.Namespace .Values.rbac.fenceAgentCredentials.namespace -}}
{{- end -}}

{{- define "palisade.rbac.updateTriggerNamespace" -}}
{{- default .Release.Namespace .Values.rbac.updateTriggerNamespace -}}
{{- end -}}
