/*
 * crumbs' standard D library: io:::wait-done's arguments are the bio submit_bio_wait was
 * given, which its return probe cannot read: this clause keeps it for the thread at the
 * function's entry (spec §6.11). Read by programs that name io:::wait-done.
 */
fbt::submit_bio_wait:entry
{
	self->__crumbs_io_wait = arg0;
}
