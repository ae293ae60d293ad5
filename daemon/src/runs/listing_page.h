// One page of a newest-first listing (runs.list, sweep.list): the finder is
// asked for one row more than the page holds, so the reply can tell whether
// another page exists without a second query.
//
// Thread-safety: pure function (the finder's own rules apply).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "energy/result.h"

namespace energy::daemon {

template <typename Row>
struct ListingPage {
  std::vector<Row> rows;  // at most the filter's limit, newest first
  bool more = false;      // rows remain beyond the last one (page on from its id)
};

// `find(filter)` returns Result<std::vector<Row>>; `filter.limit` is the page size.
template <typename Row, typename Filter, typename Find>
Result<ListingPage<Row>> listing_page(const Filter& filter, Find&& find) {
  Filter one_more = filter;
  one_more.limit = filter.limit + 1;
  auto rows = std::forward<Find>(find)(one_more);
  if (!rows) return rows.take_error();
  ListingPage<Row> page{std::move(rows).value(), false};
  page.more = static_cast<int64_t>(page.rows.size()) > filter.limit;
  if (page.more) page.rows.pop_back();
  return page;
}

}  // namespace energy::daemon
