/** Disposition and disposition-group routes (spec 4.13, decisions.md section 2). */
import type { DispositionService } from '../../application/dispositions/disposition-service';
import { contextOf, paramOf } from '../http/auth';
import { QueryReader } from '../http/query';
import { getByIdRoute, pagedListRoute } from '../http/resource-routes';
import { route, type RouteSpec } from '../http/route';
import {
  CreateDispositionBody,
  CreateGroupBody,
  GroupMembersBody,
  UpdateDispositionBody,
  UpdateGroupBody,
} from './schemas';

const READ = ['dispositions:read'];
const WRITE = ['dispositions:write'];

export function dispositionRoutes(service: DispositionService): RouteSpec[] {
  // Group routes come first: "/dispositions/groups/..." must not be read as a disposition id.
  return [
    route({
      method: 'post',
      path: '/dispositions/groups/create',
      operationId: 'createDispositionGroup',
      summary: 'Create a disposition group',
      scopes: WRITE,
      body: CreateGroupBody,
      errors: [409],
      success: { status: 201, description: 'The group' },
      idempotent: true,
      handler: async (_req, res, body) => {
        const data = await service.createGroup(contextOf(res), body);
        res.status(201).json({ success: true, message: 'Disposition group created successfully', data });
      },
    }),
    route({
      method: 'get',
      path: '/dispositions/groups/list',
      operationId: 'listDispositionGroups',
      summary: 'List disposition groups',
      scopes: READ,
      query: ['page', 'limit', 'search', 'expand'],
      errors: [400],
      handler: async (req, res) => {
        const q = new QueryReader(req);
        const query = { ...q.pagedSearch(), expand: q.bool('expand', false) };
        q.done();
        res.json({ success: true, ...(await service.listGroups(contextOf(res), query)) });
      },
    }),
    route({
      method: 'get',
      path: '/dispositions/groups/{id}',
      operationId: 'getDispositionGroup',
      summary: 'Get a disposition group',
      scopes: READ,
      query: ['expand'],
      errors: [400, 404],
      handler: async (req, res) => {
        const q = new QueryReader(req);
        const expand = q.bool('expand', false);
        q.done();
        res.json({ success: true, data: await service.getGroup(contextOf(res), paramOf(req, 'id'), expand) });
      },
    }),
    route({
      method: 'put',
      path: '/dispositions/groups/{id}',
      operationId: 'updateDispositionGroup',
      summary: 'Update a group (replaces its member list)',
      scopes: WRITE,
      body: UpdateGroupBody,
      errors: [404, 409],
      handler: async (req, res, body) => {
        const data = await service.updateGroup(contextOf(res), paramOf(req, 'id'), body);
        res.json({ success: true, message: 'Disposition group updated successfully', data });
      },
    }),
    route({
      method: 'delete',
      path: '/dispositions/groups/{id}',
      operationId: 'deleteDispositionGroup',
      summary: 'Delete a group (its dispositions stay)',
      scopes: WRITE,
      errors: [404],
      handler: async (req, res) => {
        await service.deleteGroup(contextOf(res), paramOf(req, 'id'));
        res.json({ success: true, message: 'Disposition group deleted successfully' });
      },
    }),
    route({
      method: 'post',
      path: '/dispositions/groups/{id}/dispositions',
      operationId: 'addDispositionsToGroup',
      summary: 'Add dispositions to a group',
      scopes: WRITE,
      body: GroupMembersBody,
      errors: [404],
      handler: async (req, res, { dispositions }) => {
        const data = await service.addToGroup(contextOf(res), paramOf(req, 'id'), dispositions);
        res.json({ success: true, message: 'Dispositions added to group successfully', data });
      },
    }),
    route({
      method: 'delete',
      path: '/dispositions/groups/{id}/dispositions',
      operationId: 'removeDispositionsFromGroup',
      summary: 'Remove dispositions from a group',
      scopes: WRITE,
      body: GroupMembersBody,
      errors: [404],
      handler: async (req, res, { dispositions }) => {
        await service.removeFromGroup(contextOf(res), paramOf(req, 'id'), dispositions);
        res.json({ success: true, message: 'Dispositions removed from group successfully' });
      },
    }),
    route({
      method: 'post',
      path: '/dispositions',
      operationId: 'createDisposition',
      summary: 'Create a disposition',
      scopes: WRITE,
      body: CreateDispositionBody,
      errors: [409],
      success: { status: 201, description: 'The disposition' },
      idempotent: true,
      handler: async (_req, res, body) => {
        const data = await service.create(contextOf(res), body);
        res.status(201).json({ success: true, message: 'Disposition created successfully', data });
      },
    }),
    pagedListRoute({
      search: true,
      path: '/dispositions',
      operationId: 'listDispositions',
      summary: 'List dispositions',
      scopes: READ,
      list: (ctx, query) => service.list(ctx, query),
    }),
    getByIdRoute({
      path: '/dispositions/{id}',
      operationId: 'getDisposition',
      summary: 'Get a disposition',
      scopes: READ,
      get: (ctx, id) => service.get(ctx, id),
    }),
    route({
      method: 'put',
      path: '/dispositions/{id}',
      operationId: 'updateDisposition',
      summary: 'Update a disposition',
      scopes: WRITE,
      body: UpdateDispositionBody,
      errors: [404, 409],
      handler: async (req, res, body) => {
        const data = await service.update(contextOf(res), paramOf(req, 'id'), body);
        res.json({ success: true, message: 'Disposition updated successfully', data });
      },
    }),
    route({
      method: 'delete',
      path: '/dispositions/{id}',
      operationId: 'deleteDisposition',
      summary: 'Delete a disposition (not while it is in a group)',
      scopes: WRITE,
      errors: [400, 404],
      handler: async (req, res) => {
        await service.delete(contextOf(res), paramOf(req, 'id'));
        res.json({ success: true, message: 'Disposition deleted successfully' });
      },
    }),
  ];
}
