"""EASY backfilling (Mu'alem & Feitelson 2001) written in Python against gridscope's View.

It makes the built-in `easy` policy's decisions, job for job (python/tests checks it on
KTH-SP2): start jobs from the head while they fit; then give the head a reservation at its
shadow time — the first predicted end (start + estimate) of the running jobs at which
enough units are free — and start a later job now if it fits and either ends by the shadow
time or uses only the units the head leaves over then (the "extra" units).
"""


class Easy:
    name = "py-easy"

    def schedule(self, view):
        now, free, queue = view.now_ms, view.free, view.queue
        starts, ends = [], []
        i = 0
        while i < len(queue) and queue[i].units <= free:  # 1. heads, in order
            job = queue[i]
            starts.append(job.idx)
            ends.append((now + job.estimate_ms, job.units))
            free -= job.units
            i += 1
        if i == len(queue) or free == 0:
            return starts
        head = queue[i]
        # 2. The head's shadow time: running jobs (and those just started) by predicted end.
        releases = sorted([(r.predicted_end_ms, r.units) for r in view.running] + ends)
        avail, shadow = free, None
        for end, units in releases:
            if shadow is not None and end > shadow:
                break
            avail += units
            if shadow is None and avail >= head.units:
                shadow = max(end, now)
        extra = avail - head.units
        # 3. Backfill: fits now, and ends by the shadow or stays within the extra units.
        for job in queue[i + 1:]:
            if free == 0:
                break
            if job.units > free:
                continue
            in_time = now + job.estimate_ms <= shadow
            if in_time or job.units <= extra:
                starts.append(job.idx)
                free -= job.units
                if not in_time:
                    extra -= job.units
        return starts
