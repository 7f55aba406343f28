import { ValidationPipe } from '@nestjs/common';
import { flattenValidationErrors, validationError } from '@svc/errors';

/**
 * Validates every DTO: unknown fields are refused, types are not coerced silently, and the error
 * names the field (400 for a wrong shape, 422 for a value breaking a rule).
 */
export function strictValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationError(flattenValidationErrors(errors)),
  });
}
