{{/* Berth's labels (service, environment, execution, kind): on every object and every pod. */}}
{{- define "berth.labels" -}}
{{ toYaml .Values.labels }}
{{- end }}

{{/* What a Service and a workload select on: the service alone, stable across deployments. */}}
{{- define "berth.selector" -}}
berth.service-id: {{ index .Values.labels "berth.service-id" | quote }}
{{- end }}

{{/* The mounts of the pod's containers: file variables, storage, and the steps' scratch directory. */}}
{{- define "berth.mounts" -}}
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
{{- with .Values.scratch }}
- name: scratch
  mountPath: {{ .mountPath | quote }}
{{- end }}
{{- end }}

{{/* The pod's container, volumes and pull secret: the same for every workload. */}}
{{- define "berth.podSpec" -}}
{{- if .Values.imagePullSecret }}
imagePullSecrets:
  - name: {{ .Release.Name }}-pull
{{- end }}
{{- if .Values.stateAccess }}
serviceAccountName: {{ .Release.Name }}
{{- end }}
terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
{{- with .Values.steps }}
initContainers:
  {{- range . }}
  - name: {{ .name }}
    image: {{ $.Values.image | quote }}
    {{- with $.Values.command }}
    command: {{ toJson . }}
    {{- end }}
    args: {{ toJson .args }}
    {{- with $.Values.workingDir }}
    workingDir: {{ . | quote }}
    {{- end }}
    envFrom:
      - secretRef:
          name: {{ $.Release.Name }}-env
    resources:
      requests: {{ toJson $.Values.resources }}
      limits: {{ toJson $.Values.resources }}
    {{- if or $.Values.files $.Values.volumes $.Values.scratch }}
    volumeMounts: {{- include "berth.mounts" $ | nindent 6 }}
    {{- end }}
  {{- end }}
{{- end }}
containers:
  - name: main
    image: {{ .Values.image | quote }}
    {{- with .Values.command }}
    command: {{ toJson . }}
    {{- end }}
    {{- with .Values.args }}
    args: {{ toJson . }}
    {{- end }}
    {{- with .Values.workingDir }}
    workingDir: {{ . | quote }}
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
    {{- if or .Values.files .Values.volumes .Values.scratch }}
    volumeMounts: {{- include "berth.mounts" . | nindent 6 }}
    {{- end }}
{{- if or .Values.files .Values.scratch }}
volumes:
  {{- if .Values.files }}
  - name: files
    secret:
      secretName: {{ .Release.Name }}-files
  {{- end }}
  {{- if .Values.scratch }}
  - name: scratch
    emptyDir: {}
  {{- end }}
{{- end }}
{{- end }}
