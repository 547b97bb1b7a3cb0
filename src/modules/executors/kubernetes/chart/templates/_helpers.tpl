{{/* Berth's labels (service, environment, execution, kind): on every object and every pod. */}}
{{- define "berth.labels" -}}
{{ toYaml .Values.labels }}
{{- end }}

{{/* What a Service and a workload select on: the service alone, stable across deployments. */}}
{{- define "berth.selector" -}}
berth.service-id: {{ index .Values.labels "berth.service-id" | quote }}
{{- end }}

{{/* The pod's container, volumes and pull secret: the same for every workload. */}}
{{- define "berth.podSpec" -}}
{{- if .Values.imagePullSecret }}
imagePullSecrets:
  - name: {{ .Release.Name }}-pull
{{- end }}
terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
containers:
  - name: main
    image: {{ .Values.image | quote }}
    {{- with .Values.command }}
    command: {{ toJson . }}
    {{- end }}
    {{- with .Values.args }}
    args: {{ toJson . }}
    {{- end }}
    envFrom:
      - secretRef:
          name: {{ .Release.Name }}-env
    resources:
      requests: {{ toJson .Values.resources }}
      limits: {{ toJson .Values.resources }}
    {{- with .Values.ports }}
    ports:
      {{- range . }}
      - name: {{ .name }}
        containerPort: {{ .port }}
        protocol: {{ .protocol }}
      {{- end }}
    {{- end }}
    {{- with .Values.readinessProbe }}
    readinessProbe: {{ toJson . }}
    {{- end }}
    {{- with .Values.livenessProbe }}
    livenessProbe: {{ toJson . }}
    {{- end }}
    {{- if or .Values.files .Values.volumes }}
    volumeMounts:
      {{- range .Values.files }}
      - name: files
        mountPath: {{ .path | quote }}
        subPath: {{ .key }}
        readOnly: true
      {{- end }}
      {{- range .Values.volumes }}
      - name: {{ .name }}
        mountPath: {{ .mountPath | quote }}
        {{- with .subPath }}
        subPath: {{ . }}
        {{- end }}
      {{- end }}
    {{- end }}
{{- if .Values.files }}
volumes:
  - name: files
    secret:
      secretName: {{ .Release.Name }}-files
{{- end }}
{{- end }}
