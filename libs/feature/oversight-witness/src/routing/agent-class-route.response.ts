import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsString, ValidateNested } from 'class-validator';

const ROUTES = ['conductor', 'oversight'] as const;

/** `routeView` (`agent_class_route`): one class's configured hybrid route. */
export class AgentClassRouteResponse {
  @IsIn(['agent_class_route']) object!: 'agent_class_route';
  @IsString() agent_class!: string;
  @IsIn([...ROUTES]) route!: string;
  @IsString() updated_at!: string;
}

/** GET …/agent_class_routes?agent_class=: the effective route of one class. */
export class ResolvedAgentClassRouteResponse {
  @IsIn(['agent_class_route']) object!: 'agent_class_route';
  @IsString() agent_class!: string;
  /** The application's mode (`conductor`, `oversight` or `hybrid`). */
  @IsString() mode!: string;
  @IsIn([...ROUTES]) route!: string;
  /** False when the class has no row and falls back to its default. */
  @IsBoolean() configured!: boolean;
}

/** PUT …/agent_class_routes: `{agent_class_route}`. */
export class AgentClassRouteEnvelopeResponse {
  @ValidateNested() @Type(() => AgentClassRouteResponse) agent_class_route!: AgentClassRouteResponse;
}
