package search

import "bytes"

// hit is one matching line of a buffer.
type hit struct {
	num        int // 1-based line number
	start, end int // byte range without the '\n'
}

// appendSpan appends the lines of buf[start:end] (whole lines, the first
// numbered num) as hits, skipping lines already recorded: multiline
// matches may share a line.
func appendSpan(hits []hit, buf []byte, num, start, end int) []hit {
	for {
		le := lineEnd(buf, start)
		if le > end {
			le = end
		}
		if len(hits) == 0 || hits[len(hits)-1].num < num {
			hits = append(hits, hit{num: num, start: start, end: le})
		}
		if le >= end {
			return hits
		}
		start, num = le+1, num+1
	}
}

// buildBlocks turns hits (ascending) into blocks of lines with up to
// before/after context lines around each hit; blocks whose context would
// touch or overlap merge. Without context all hits form one block.
func buildBlocks(buf []byte, hits []hit, before, after int) [][]Line {
	if len(hits) == 0 {
		return nil
	}
	if before == 0 && after == 0 {
		block := make([]Line, len(hits))
		for i, h := range hits {
			block[i] = Line{Num: h.num, Text: string(buf[h.start:h.end]), Match: true}
		}
		return [][]Line{block}
	}
	var blocks [][]Line
	var cur []Line
	lastNum, nextStart := 0, 0 // last emitted line and the offset after it
	for _, h := range hits {
		// After-context of the previous hit, up to the line before h.
		for n := 0; len(cur) > 0 && n < after && lastNum+1 < h.num; n++ {
			le := lineEnd(buf, nextStart)
			cur = append(cur, Line{Num: lastNum + 1, Text: string(buf[nextStart:le])})
			lastNum, nextStart = lastNum+1, le+1
		}
		first := max(h.num-before, 1)
		if len(cur) > 0 && first > lastNum+1 {
			blocks = append(blocks, cur)
			cur = nil
		}
		first = max(first, lastNum+1)
		for _, l := range linesBefore(buf, h.start, h.num-first) {
			cur = append(cur, Line{Num: first, Text: l})
			first++
		}
		cur = append(cur, Line{Num: h.num, Text: string(buf[h.start:h.end]), Match: true})
		lastNum, nextStart = h.num, h.end+1
	}
	for n := 0; n < after && nextStart < len(buf); n++ {
		le := lineEnd(buf, nextStart)
		cur = append(cur, Line{Num: lastNum + 1, Text: string(buf[nextStart:le])})
		lastNum, nextStart = lastNum+1, le+1
	}
	return append(blocks, cur)
}

// linesBefore returns the k lines before the line starting at start, in
// order.
func linesBefore(buf []byte, start, k int) []string {
	if k <= 0 {
		return nil
	}
	out := make([]string, k)
	end := start - 1 // the '\n' ending the previous line
	for i := k - 1; i >= 0; i-- {
		s := bytes.LastIndexByte(buf[:end], '\n') + 1
		out[i] = string(buf[s:end])
		end = s - 1
	}
	return out
}
