import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AlertReceiversService } from './alert-receivers.service.ts'
import type { AlertRulesService } from './alert-rules.service.ts'
import {
  AlertReceiverCreationRequest,
  AlertReceiverCreationValidationRequest,
  AlertReceiverEditRequest,
  AlertReceiverList,
  AlertReceiverParams,
  AlertReceiverResponse,
  AlertReceiverValidationRequest,
  AlertReceiverValidationResponse,
  AlertRuleCreationRequest,
  AlertRuleEditRequest,
  AlertRuleList,
  AlertRuleParams,
  AlertRuleResponse,
  ClusterMetricsParams,
  ClusterMetricsQuery,
  ClusterMetricsResponse,
  OrganizationParams,
} from './alerting.schemas.ts'
import { toAlertReceiverResponse, toAlertRuleResponse } from './alerting.wire.ts'

// The reference's Alert Receivers and Alert Rules operations, and get-cluster-metrics (docs/alerting.md).

const receiverTags = ['Alert Receivers']
const ruleTags = ['Alert Rules']
const WRITE = 'Needs the WRITE role.'
const SECRETS = 'webhook_url and auth_password are write-only: stored encrypted, never returned.'
const VALIDATE = 'Berth sends the test notification itself and answers whether it went (`sent`, and `message` when not).'

export function alertingRoutes(receivers: AlertReceiversService, rules: AlertRulesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/alert-receivers',
      {
        schema: {
          operationId: 'getAlertReceivers',
          summary: 'List alert receivers',
          tags: receiverTags,
          params: OrganizationParams,
          response: { 200: AlertReceiverList },
        },
      },
      async (req) => ({ results: (await receivers.list(req.principal, req.params.organizationId)).map(toAlertReceiverResponse) }),
    )
    app.post(
      '/alert-receivers',
      {
        schema: {
          operationId: 'createAlertReceiver',
          summary: 'Create alert receiver',
          description: `${WRITE} ${SECRETS} Its address passes the outbound address guard.`,
          tags: receiverTags,
          body: AlertReceiverCreationRequest,
          response: { 201: AlertReceiverResponse },
        },
      },
      async (req, reply) => reply.code(201).send(toAlertReceiverResponse(await receivers.create(req.principal, req.body))),
    )
    app.post(
      '/alert-receivers/validate',
      {
        schema: {
          operationId: 'validateNewAlertReceiver',
          summary: 'Validate New Alert Receiver',
          description: `${WRITE} ${VALIDATE}`,
          tags: receiverTags,
          body: AlertReceiverCreationValidationRequest,
          response: { 200: AlertReceiverValidationResponse },
        },
      },
      async (req) => {
        const problem = await receivers.validateNew(req.principal, req.body.alert_receiver, req.body.message)
        return problem ? { sent: false, message: problem } : { sent: true }
      },
    )
    app.get(
      '/alert-receivers/:alertReceiverId',
      {
        schema: {
          operationId: 'getAlertReceiver',
          summary: 'Get alert receiver',
          tags: receiverTags,
          params: AlertReceiverParams,
          response: { 200: AlertReceiverResponse },
        },
      },
      async (req) => toAlertReceiverResponse(await receivers.requireReceiver(req.principal, req.params.alertReceiverId, 'READ')),
    )
    app.put(
      '/alert-receivers/:alertReceiverId',
      {
        schema: {
          operationId: 'editAlertReceiver',
          summary: 'Update alert receiver',
          description: `${WRITE} ${SECRETS} A null or absent secret keeps the stored one.`,
          tags: receiverTags,
          params: AlertReceiverParams,
          body: AlertReceiverEditRequest,
          response: { 200: AlertReceiverResponse },
        },
      },
      async (req) => toAlertReceiverResponse(await receivers.edit(req.principal, req.params.alertReceiverId, req.body)),
    )
    app.delete(
      '/alert-receivers/:alertReceiverId',
      {
        schema: {
          operationId: 'deleteAlertReceiver',
          summary: 'Delete alert receiver',
          description: `${WRITE} Refused with 409 while alert rules use it.`,
          tags: receiverTags,
          params: AlertReceiverParams,
        },
      },
      async (req, reply) => {
        await receivers.delete(req.principal, req.params.alertReceiverId)
        return reply.code(204).send()
      },
    )
    app.post(
      '/alert-receivers/:alertReceiverId/validate',
      {
        schema: {
          operationId: 'validateExistingAlertReceiver',
          summary: 'Validate Existing Alert Receiver',
          description: `${WRITE} ${VALIDATE}`,
          tags: receiverTags,
          params: AlertReceiverParams,
          body: AlertReceiverValidationRequest,
          response: { 200: AlertReceiverValidationResponse },
        },
      },
      async (req) => {
        const problem = await receivers.validateExisting(req.principal, req.params.alertReceiverId, req.body?.message)
        return problem ? { sent: false, message: problem } : { sent: true }
      },
    )

    app.get(
      '/organization/:organizationId/alert-rules',
      {
        schema: {
          operationId: 'getAlertRules',
          summary: 'List alert rules',
          description: "Each rule's `state` and `is_up_to_date` as Prometheus and Alertmanager say.",
          tags: ruleTags,
          params: OrganizationParams,
          response: { 200: AlertRuleList },
        },
      },
      async (req) => ({ results: (await rules.list(req.principal, req.params.organizationId)).map(toAlertRuleResponse) }),
    )
    app.post(
      '/alert-rules',
      {
        schema: {
          operationId: 'createAlertRule',
          summary: 'Create alert rule',
          description: `${WRITE} The PromQL is checked by Prometheus (promtool): a broken one is a 400 with its message. It sees the organization's series only.`,
          tags: ruleTags,
          body: AlertRuleCreationRequest,
          response: { 201: AlertRuleResponse },
        },
      },
      async (req, reply) => reply.code(201).send(toAlertRuleResponse(await rules.create(req.principal, req.body))),
    )
    app.get(
      '/alert-rules/:alertRuleId',
      {
        schema: {
          operationId: 'getAlertRule',
          summary: 'Get alert rule',
          tags: ruleTags,
          params: AlertRuleParams,
          response: { 200: AlertRuleResponse },
        },
      },
      async (req) => toAlertRuleResponse(await rules.get(req.principal, req.params.alertRuleId)),
    )
    app.put(
      '/alert-rules/:alertRuleId',
      {
        schema: {
          operationId: 'editAlertRule',
          summary: 'Update alert rule',
          description: WRITE,
          tags: ruleTags,
          params: AlertRuleParams,
          body: AlertRuleEditRequest,
          response: { 200: AlertRuleResponse },
        },
      },
      async (req) => toAlertRuleResponse(await rules.edit(req.principal, req.params.alertRuleId, req.body)),
    )
    app.delete(
      '/alert-rules/:alertRuleId',
      { schema: { operationId: 'deleteAlertRule', summary: 'Delete alert rule', description: WRITE, tags: ruleTags, params: AlertRuleParams } },
      async (req, reply) => {
        await rules.delete(req.principal, req.params.alertRuleId)
        return reply.code(204).send()
      },
    )

    app.get(
      '/cluster/:clusterId/metrics',
      {
        schema: {
          operationId: 'get-cluster-metrics',
          summary: 'Fetch cluster metrics',
          description:
            "Prometheus' answer to `query` at `endpoint` (api/v1/query or api/v1/query_range), the query limited to the cluster's organization's series. Docker clusters: the Prometheus Berth runs or BERTH_PROMETHEUS_URL.",
          tags: ['Clusters'],
          params: ClusterMetricsParams,
          querystring: ClusterMetricsQuery,
          response: { 200: ClusterMetricsResponse },
        },
      },
      async (req) => ({ metrics: await rules.clusterMetrics(req.principal, req.params.clusterId, req.query) }),
    )
  }
}
