/** Test fixtures of receipts (`@svc/receipts/testing`): receipt inputs and a signing key, for tests beyond this library. */
export { NOTICE, anonymousConsentInput, authorityInput, consentInput, noticeInput } from './receipt-fixtures';
export { flipOneByte, naclVerify, testSigningKey } from './signing-fixtures';
