/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_gres.c - the nodes that can serve a job's GRES (sl_gres.h).
 */
#include "sl_gres.h"

static int _add_want(void *x, void *arg)
{
	gres_state_t *gs = x;
	gres_job_state_t *js = gs->gres_data;
	sl_gres_wants_t *w = arg;
	sl_gres_want_t *want;

	if (!js)
		return 0;
	want = &w->want[w->n++];
	want->plugin_id = gs->plugin_id;
	want->type_id = js->type_id;
	want->need = MAX(1, js->gres_per_node);
	want->need = MAX(want->need, js->gres_per_socket);
	want->need = MAX(want->need, js->gres_per_task);
	return 0;
}

void sl_gres_wants_read(job_record_t *job, sl_gres_wants_t *w)
{
	w->want = NULL;
	w->n = 0;
	if (!job->gres_list_req || !list_count(job->gres_list_req))
		return;
	w->want = xcalloc(list_count(job->gres_list_req), sizeof(*w->want));
	(void)list_for_each_ro(job->gres_list_req, _add_want, w);
}

void sl_gres_wants_free(sl_gres_wants_t *w)
{
	xfree(w->want);
	w->n = 0;
}

/* Adds to want->have what one GRES of a node's gres_list configures of
 * want's kind (and type, when it names one). */
static int _add_configured(void *x, void *arg)
{
	gres_state_t *gs = x;
	gres_node_state_t *ns = gs->gres_data;
	sl_gres_want_t *want = arg;

	if (gs->plugin_id != want->plugin_id || !ns)
		return 0;
	if (!want->type_id) {
		want->have += ns->gres_cnt_avail;
		return 0;
	}
	for (int t = 0; t < ns->type_cnt; t++)
		if (ns->type_id[t] == want->type_id)
			want->have += ns->type_cnt_avail[t];
	return 0;
}

bool sl_gres_node_serves(node_record_t *node, sl_gres_wants_t *w)
{
	for (int i = 0; i < w->n; i++) {
		sl_gres_want_t *want = &w->want[i];

		want->have = 0;
		if (node->gres_list)
			(void)list_for_each_ro(node->gres_list,
					       _add_configured, want);
		if (want->have < want->need)
			return false;
	}
	return true;
}

static int _allocated(void *x, void *arg)
{
	gres_node_state_t *ns = ((gres_state_t *)x)->gres_data;

	return (ns && ns->gres_cnt_alloc) ? -1 : 0;
}

bool sl_gres_node_in_use(node_record_t *node)
{
	return node->gres_list &&
	       list_for_each_ro(node->gres_list, _allocated, NULL) < 0;
}
