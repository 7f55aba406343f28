import { IsDefined, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PageQuery } from '@svc/server';
import { MAX_AGENT_CLASS_LENGTH } from '../attestations/attestation';
import { AGENT_CLASS_ROUTES, type AgentClassRoute } from './agent-class-routes.repository';

/** `PUT /api/v1/oap/attestations/agent_class_routes`: set one agent class's route. */
export class SetAgentClassRouteBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_AGENT_CLASS_LENGTH)
  agent_class!: string;

  @IsDefined()
  @IsString()
  @IsIn(AGENT_CLASS_ROUTES, { message: `route must be one of ${AGENT_CLASS_ROUTES.join(', ')}` })
  route!: AgentClassRoute;
}

/** `DELETE /api/v1/oap/attestations/agent_class_routes?agent_class=…`. */
export class AgentClassQuery {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_AGENT_CLASS_LENGTH)
  agent_class!: string;
}

/** `GET /api/v1/oap/attestations/agent_class_routes`: a page of routes. */
export class AgentClassRoutesQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(MAX_AGENT_CLASS_LENGTH)
  agent_class?: string;
}
