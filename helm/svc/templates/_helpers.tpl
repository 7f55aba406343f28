{{/* Release-wide name prefix, e.g. svc-us. */}}
{{- define "svc.fullname" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* Region of this release; fails the render unless it is us, eu or ap. */}}
{{- define "svc.region" -}}
{{- $region := required "values: region is required (us, eu or ap)" .Values.region -}}
{{- if not (has $region (list "us" "eu" "ap")) -}}
{{- fail (printf "values: region must be us, eu or ap, not %q" $region) -}}
{{- end -}}
{{- $region -}}
{{- end -}}

{{/* In-cluster Service (and Deployment) name of one app: dict "root" $ "name" <app>. */}}
{{- define "svc.serviceName" -}}
{{- printf "%s-%s" (include "svc.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{- define "svc.labels" -}}
{{ include "svc.selectorLabels" . }}
app.kubernetes.io/part-of: svc
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
svc.example.com/region: {{ include "svc.region" .root }}
{{- end -}}

{{/*
SERVICE_URLS of the router: `name=http://<in-cluster service>:<port>` for every app of this release
except the router itself, built from the same names as the Services in service.yaml.
*/}}
{{- define "svc.serviceUrls" -}}
{{- $root := . -}}
{{- $pairs := list -}}
{{- range $name, $svc := .Values.services -}}
{{- if not $svc.router -}}
{{- $host := printf "%s.%s.svc.%s" (include "svc.serviceName" (dict "root" $root "name" $name)) $root.Release.Namespace $root.Values.clusterDomain -}}
{{- $pairs = append $pairs (printf "%s=http://%s:%d" $name $host (int $root.Values.servicePort)) -}}
{{- end -}}
{{- end -}}
{{- join "," $pairs -}}
{{- end -}}

{{/* Labels every pod of this release carries (Deployments and the migration Job): the same-release selector. */}}
{{- define "svc.releaseSelector" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: svc
{{- end -}}

{{/* Name of the CloudNativePG Cluster of this release (postgres.cloudNativePG). */}}
{{- define "svc.postgresClusterName" -}}
{{- .Values.postgres.cloudNativePG.name | default (printf "%s-postgres" (include "svc.fullname" .)) -}}
{{- end -}}
