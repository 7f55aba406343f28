export {
  DomainError,
  HTTP_STATUS_BY_KIND,
  defineErrors,
  isDomainError,
  reasonCodesByKind,
  type ErrorEnvelope,
  type ErrorKind,
} from './domain-error';
export { commonError, type CommonErrorCode } from './common-errors';
export { flattenValidationErrors, validationError, type FieldProblem } from './validation';
export { WrongRegionError, type HomeRegion } from './wrong-region';
export { isDependencyUnavailable } from './dependency-unavailable';
