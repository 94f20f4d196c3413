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

{{/* The image: repository@digest when a digest is given, else repository:tag (default appVersion). */}}
{{- define "palisade.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "palisade.configName" -}}
{{- printf "%s-config" (include "palisade.fullname" .) -}}
{{- end -}}

{{- define "palisade.webhookServiceName" -}}
{{- printf "%s-webhook" (include "palisade.fullname" .) -}}
{{- end -}}

{{- define "palisade.servingSecretName" -}}
{{- printf "%s-webhook-serving" (include "palisade.fullname" .) -}}
{{- end -}}

{{/*
The three ValidatingWebhookConfigurations. Cluster-scoped, named as Palisade's code names them
(server/protection/register.ts, server/fencing/approvalWebhook.ts, server/leader/epochWebhook.ts):
one release per cluster.
*/}}
{{- define "palisade.webhookConfigurationNames" -}}
- podseidon.kubewharf.io
- palisade-nodefences
- palisade-leader-epochs
{{- end -}}

{{/* The label that keeps Palisade's own pods out of its pod-deletion webhook (objectSelector). */}}
{{- define "palisade.releaseIdLabel" -}}
podseidon.kubewharf.io/release-id: palisade
{{- end -}}

{{/* The console's public URL: the value, else the Ingress host's. */}}
{{- define "palisade.publicURL" -}}
{{- if .Values.console.publicURL -}}
{{- .Values.console.publicURL -}}
{{- else if .Values.ingress.enabled -}}
{{- printf "%s://%s" (ternary "https" "http" (ne .Values.ingress.tlsSecretName "")) .Values.ingress.host -}}
{{- end -}}
{{- end -}}

{{/* cert-manager: the Certificate whose CA cainjector writes into the webhook configurations. */}}
{{- define "palisade.servingCertificateName" -}}
{{- printf "%s-webhook-serving" (include "palisade.fullname" .) -}}
{{- end -}}

{{/* Annotations every webhook configuration carries in cert-manager mode. */}}
{{- define "palisade.webhookAnnotations" -}}
{{- if eq .Values.webhook.certificates.mode "cert-manager" -}}
annotations:
  cert-manager.io/inject-ca-from: {{ printf "%s/%s" (include "palisade.namespace" .) (include "palisade.servingCertificateName" .) }}
{{- end }}
{{- end -}}

{{/* clientConfig of one webhook: the webhook Service, a path; no caBundle (see webhooks.yaml). */}}
{{- define "palisade.clientConfig" -}}
clientConfig:
  service:
    namespace: {{ (include "palisade.namespace" .root) }}
    name: {{ include "palisade.webhookServiceName" .root }}
    port: {{ .root.Values.webhook.service.port }}
    path: {{ printf "/%s/%s" .kind .root.Values.protection.cellID }}
{{- end -}}

{{/*
The namespace Palisade's objects go in: namespace.name when set, else the release's (helm
--namespace), except "default" — where `helm template` and a bare `helm install` put everything, and
where Palisade never belongs — which gives palisade-system. So the default render
(deploy/manifests/palisade.yaml) is a complete install on its own.
*/}}
{{- define "palisade.namespace" -}}
{{- if .Values.namespace.name -}}
{{- .Values.namespace.name -}}
{{- else if eq .Release.Namespace "default" -}}
palisade-system
{{- else -}}
{{- .Release.Namespace -}}
{{- end -}}
{{- end -}}

{{/*
The pod-deletion webhook's failurePolicy as the chart writes it: Ignore on install (no replica
answers yet), else the one in force (the leader set it after its self-probe; an upgrade must
not switch enforcement off). `helm template` looks at no cluster: Ignore.
*/}}
{{- define "palisade.podWebhookFailurePolicy" -}}
{{- $policy := "Ignore" -}}
{{- $live := lookup "admissionregistration.k8s.io/v1" "ValidatingWebhookConfiguration" "" "podseidon.kubewharf.io" -}}
{{- range (dig "webhooks" list $live) -}}
{{- if and (eq .name "podseidon.kubewharf.io") (has .failurePolicy (list "Fail" "Ignore")) -}}
{{- $policy = .failurePolicy -}}
{{- end -}}
{{- end -}}
{{- $policy -}}
{{- end -}}
