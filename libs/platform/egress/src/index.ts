export { refusalOf, refusedRangeOf, type EgressEnvironment, type RefusedRange } from './address-policy';
export {
  bareHost,
  firstRefused,
  guardedLookup,
  refusedTargetOf,
  resolveAllWithDns,
  targetRefusalIn,
  TARGET_REFUSED_CODE,
  TargetRefusedError,
  type ResolveAll,
} from './target-check';
export { guardedAgent, type GuardedAgentOptions } from './guarded-agent';
export { isRefusedTargetError, networkErrorText, REFUSED_TARGET_ERROR } from './network-error';
export {
  ABORTED_ERROR,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_READ_TIMEOUT_MS,
  EgressClient,
  type EgressClientOptions,
  type EgressRequest,
  type EgressResult,
} from './egress-client';
