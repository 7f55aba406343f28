export { randomBase32, randomBase62, randomBase64Url } from './random';
export {
  ID_FORMATS,
  ID_REGIONS,
  idPattern,
  isIdOf,
  newApiToken,
  newApprovalSessionToken,
  newConsentToken,
  newId,
  newRegionalId,
  parseId,
  regionSegmentOf,
  type IdKind,
  type IdRegion,
  type ParsedId,
} from './identifiers';
export { IsIdOf, idShape } from './is-id-of';
export { CrossBorder, RoutedBy, isCrossBorder, routedFieldsOf } from './routed-by';
