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
