{{/*
Names shared by every template. The release name is the base of every object's name, so two
releases in one namespace never collide; cluster-scoped objects (ClusterRoles, webhook
configurations) carry the namespace too where two releases in two namespaces could collide.
*/}}
{{- define "palisade.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "palisade.selectorLabels" -}}
app.kubernetes.io/name: palisade
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "palisade.labels" -}}
{{ include "palisade.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: palisade
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "palisade.serviceAccountName" -}}
{{- default (include "palisade.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}
