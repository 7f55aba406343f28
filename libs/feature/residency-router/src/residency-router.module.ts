import { Module } from '@nestjs/common';

/**
 * residency-router: the region's public ingress. Its HTTP behaviour is installed on Fastify by
 * `installRegionGuard` (and `installProxy` in distributed mode); the cross-border directory of
 * minimized status and the transfer register come with the residency work.
 */
@Module({})
export class ResidencyRouterModule {}
