import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { isDomainError } from '@svc/errors';
import type { ReceiptTransition } from './events/transitions';
import { buildReceipt } from './record/build-receipt';
import type { ReceiptInput } from './record/inputs';
import { RECORD_TYPES } from './record/receipt-document';
import { receiptsError } from './receipts.errors';
import type { ReceiptSource } from './storage/receipts.repository';
import { AppendReceiptTransition } from './use-cases/append-receipt-transition.use-case';
import { FreezeReceipt } from './use-cases/freeze-receipt.use-case';

const RPC_SOURCES: readonly ReceiptSource[] = ['consent-records', 'oap-authorizer'];

function parseObject(json: string, field: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw receiptsError('receipt_input_invalid', `${field} is not JSON`, { field });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw receiptsError('receipt_input_invalid', `${field} is not a JSON object`, { field });
  return value as Record<string, unknown>;
}

/**
 * The bus face of the in-process API, for services running apart from receipts (distributed
 * mode): `receipts.freeze` → {@link FreezeReceipt}, `receipts.append_transition` →
 * {@link AppendReceiptTransition}. Inputs travel as JSON of the same plain types; a shape the
 * builder cannot read is `receipt_input_invalid`, never an internal error.
 */
@Controller()
export class ReceiptsRpcHandlers {
  constructor(
    private readonly freeze: FreezeReceipt,
    private readonly append: AppendReceiptTransition,
  ) {}

  @RpcHandler('receipts.freeze')
  async freezeReceipt(request: RpcRequest<'receipts.freeze'>): Promise<RpcReplyInit<'receipts.freeze'>> {
    if (!(RPC_SOURCES as readonly string[]).includes(request.source))
      throw receiptsError('receipt_input_invalid', 'source must be consent-records or oap-authorizer', { field: 'source' });
    const input = parseObject(request.inputJson, 'input_json');
    if (!(RECORD_TYPES as readonly unknown[]).includes(input.kind))
      throw receiptsError('receipt_input_invalid', 'input_json.kind is not a record type', { field: 'input_json.kind' });
    try {
      // A dry build: malformed JSON shapes fail here as a TypeError, before any write.
      buildReceipt(input as unknown as ReceiptInput);
    } catch (error) {
      if (isDomainError(error)) throw error;
      throw receiptsError('receipt_input_invalid', 'input_json is not a receipt input of its kind', { field: 'input_json' });
    }
    const frozen = await this.freeze.execute(input as unknown as ReceiptInput, request.source as ReceiptSource);
    return { recordId: frozen.recordId, documentSha256: frozen.documentSha256, created: frozen.created };
  }

  @RpcHandler('receipts.append_transition')
  async appendTransition(request: RpcRequest<'receipts.append_transition'>): Promise<RpcReplyInit<'receipts.append_transition'>> {
    const transition = parseObject(request.transitionJson, 'transition_json');
    if (typeof transition.type !== 'string' || typeof transition.at !== 'string') {
      throw receiptsError('receipt_input_invalid', 'transition_json needs a type and an at', { field: 'transition_json' });
    }
    const appended = await this.append.execute(
      request.applicationId,
      request.recordId,
      transition as unknown as ReceiptTransition,
      request.idempotencyKey || undefined,
    );
    return { appended };
  }
}
