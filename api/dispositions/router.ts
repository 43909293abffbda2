/** Disposition and disposition-group routes (spec 4.13, decisions.md section 2). */
import { Router } from 'express';
import type { DispositionService } from '../../application/dispositions/disposition-service';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { QueryReader } from '../http/query';
import { validate } from '../http/validation';
import {
  CreateDispositionBody,
  CreateGroupBody,
  GroupMembersBody,
  UpdateDispositionBody,
  UpdateGroupBody,
} from './schemas';

export function dispositionsRouter(service: DispositionService): Router {
  const router = Router();
  const read = requireScope('dispositions:read');
  const write = requireScope('dispositions:write');

  const listQuery = (q: QueryReader) => ({
    page: q.int('page', 1, 1, 1_000_000),
    limit: q.int('limit', 10, 1, 100),
    search: q.string('search'),
  });

  // Group routes come first: "/dispositions/groups/..." must not be read as a disposition id.
  router.post('/dispositions/groups/create', write, async (req, res) => {
    const data = await service.createGroup(contextOf(res), validate(CreateGroupBody, req.body));
    res.status(201).json({ success: true, message: 'Disposition group created successfully', data });
  });
  router.get('/dispositions/groups/list', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = { ...listQuery(q), expand: q.bool('expand', false) };
    q.done();
    res.json({ success: true, ...(await service.listGroups(contextOf(res), query)) });
  });
  router.get('/dispositions/groups/:id', read, async (req, res) => {
    const q = new QueryReader(req);
    const expand = q.bool('expand', false);
    q.done();
    res.json({ success: true, data: await service.getGroup(contextOf(res), paramOf(req, 'id'), expand) });
  });
  router.put('/dispositions/groups/:id', write, async (req, res) => {
    const data = await service.updateGroup(contextOf(res), paramOf(req, 'id'), validate(UpdateGroupBody, req.body));
    res.json({ success: true, message: 'Disposition group updated successfully', data });
  });
  router.delete('/dispositions/groups/:id', write, async (req, res) => {
    await service.deleteGroup(contextOf(res), paramOf(req, 'id'));
    res.json({ success: true, message: 'Disposition group deleted successfully' });
  });
  router.post('/dispositions/groups/:id/dispositions', write, async (req, res) => {
    const { dispositions } = validate(GroupMembersBody, req.body);
    const data = await service.addToGroup(contextOf(res), paramOf(req, 'id'), dispositions);
    res.json({ success: true, message: 'Dispositions added to group successfully', data });
  });
  router.delete('/dispositions/groups/:id/dispositions', write, async (req, res) => {
    const { dispositions } = validate(GroupMembersBody, req.body);
    await service.removeFromGroup(contextOf(res), paramOf(req, 'id'), dispositions);
    res.json({ success: true, message: 'Dispositions removed from group successfully' });
  });

  router.post('/dispositions', write, async (req, res) => {
    const data = await service.create(contextOf(res), validate(CreateDispositionBody, req.body));
    res.status(201).json({ success: true, message: 'Disposition created successfully', data });
  });
  router.get('/dispositions', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = listQuery(q);
    q.done();
    res.json({ success: true, ...(await service.list(contextOf(res), query)) });
  });
  router.get('/dispositions/:id', read, async (req, res) => {
    res.json({ success: true, data: await service.get(contextOf(res), paramOf(req, 'id')) });
  });
  router.put('/dispositions/:id', write, async (req, res) => {
    const data = await service.update(contextOf(res), paramOf(req, 'id'), validate(UpdateDispositionBody, req.body));
    res.json({ success: true, message: 'Disposition updated successfully', data });
  });
  router.delete('/dispositions/:id', write, async (req, res) => {
    await service.delete(contextOf(res), paramOf(req, 'id'));
    res.json({ success: true, message: 'Disposition deleted successfully' });
  });
  return router;
}
